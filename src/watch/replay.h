/* SPDX-License-Identifier: MIT */
/*
 * A recorded trace file fed to watch as if it were being recorded (the
 * hidden `qostrace watch --replay FILE`): its blocks go to watch's sink in
 * file order, each EVENTS block's records to the tap first, as the
 * writer hands them over, and the detector steps after every block with
 * the recording complete up to the records read. What watch would have
 * written during that recording, it writes: the test bench of the
 * detector's agreement with the report, on any recording.
 */
#ifndef QT_WATCH_REPLAY_H
#define QT_WATCH_REPLAY_H

#include <stdio.h>

struct watch;

/* Feeds path to w, printing what watch says into out. 0 or a negative errno after a message. */
int watch_replay(struct watch *w, const char *path, FILE *out);

#endif
