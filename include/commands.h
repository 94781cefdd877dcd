/* The subcommands of qostrace, one module each (src/cmd_<name>.c). */
#ifndef QT_COMMANDS_H
#define QT_COMMANDS_H

struct command {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the command name */
	const char *summary;
};

#endif
