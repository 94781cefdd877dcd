/* The subcommands of qostrace, one module each (src/cmd_<name>.c). */
#ifndef QT_COMMANDS_H
#define QT_COMMANDS_H

struct command {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the command name */
	const char *summary;
};

/* The whole command line, for the trace file's META block. */
extern int main_argc;
extern char **main_argv;

int cmd_record(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_demo(int argc, char **argv);

#endif
