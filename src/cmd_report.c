// SPDX-License-Identifier: MIT
/* qostrace report: placeholder until the analysis stages land. */
#include <stdio.h>

#include "commands.h"

int cmd_report(int argc, char **argv)
{
	fprintf(stderr, "qostrace report: not built yet\n");
	return 1;
}
