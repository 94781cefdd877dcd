/* The subcommands of qostrace, one module each (src/cmd_<name>.c). */
#ifndef QT_COMMANDS_H
#define QT_COMMANDS_H

/*
 * argv[0] is "qostrace NAME"; whole is the command line as typed (NULL
 * terminated), which record keeps in the trace file's META block.
 */
struct command {
	const char *name;
	int (*run)(int argc, char **argv, char *const *whole);
	const char *summary;
};

int cmd_record(int argc, char **argv, char *const *whole);
int cmd_info(int argc, char **argv, char *const *whole);
int cmd_dump(int argc, char **argv, char *const *whole);
int cmd_report(int argc, char **argv, char *const *whole);
int cmd_demo(int argc, char **argv, char *const *whole);
int cmd_export(int argc, char **argv, char *const *whole);
int cmd_watch(int argc, char **argv, char *const *whole);

#endif
