/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * The data-flow records (QT_REC_DATA, include/qt_events.h; docs/
 * ALGORITHMS.md §9.2): at the exit of a target's data system call that
 * moved bytes, the identity of the object behind its descriptor(s), read
 * from current->files with CO-RE. Both paths with BTF share it (tp_btf
 * and raw_tp); the classic tracepoints' object cannot carry CO-RE
 * relocations and records none.
 *
 * What it costs a call that is not a data call: one load from the
 * data_calls table. A data call: the descriptor table walk (about eight
 * probe reads per descriptor) and one record; an open, also its file's
 * name (one string read).
 */
#ifndef QT_DATA_BPF_H
#define QT_DATA_BPF_H

/* Per system call number, its enum qt_data_call: filled by the loader (src/record/datacalls.c). */
const volatile __u8 data_calls[QT_DATA_NRS] = {};

#define QT_S_IFMT 0170000
#define QT_S_IFSOCK 0140000
#define QT_S_IFREG 0100000
#define QT_AF_UNIX 1
#define QT_O_TRUNC 01000	/* x86, arm and the generic table alike */

/*
 * The file of descriptor fd of the current task, or NULL. On tp_btf (btf)
 * the task is a trusted pointer: its files and descriptor table are plain
 * loads, not helper calls; raw_tp reads them with CO-RE. The table's slot
 * is a probe read either way.
 */
static __always_inline struct file *data_fd_file(bool btf, __u64 fd)
{
	struct fdtable *fdt;
	struct file **fds;
	struct file *f = NULL;
	unsigned int max;

	if (btf) {
		struct files_struct *files = bpf_get_current_task_btf()->files;

		if (!files)
			return NULL;
		fdt = files->fdt;
		if (!fdt)
			return NULL;
		max = fdt->max_fds;
		fds = fdt->fd;
	} else {
		fdt = BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), files, fdt);
		if (!fdt)
			return NULL;
		max = BPF_CORE_READ(fdt, max_fds);
		fds = BPF_CORE_READ(fdt, fd);
	}
	if (fd >= max)
		return NULL;
	bpf_probe_read_kernel(&f, sizeof(f), fds + fd);
	return f;
}

/*
 * The object of descriptor fd into *o (zeroed first: ino 0 when it cannot
 * be resolved); its file, or NULL.
 */
static __always_inline struct file *data_obj(bool btf, __u64 fd, struct qt_data_obj *o)
{
	struct file *f = data_fd_file(btf, fd);
	struct inode *in;
	struct socket *sock;
	struct sock *sk, *peer;
	__u32 fmt;

	o->ino = o->peer = 0;
	o->dev = o->mode = 0;
	if (!f)
		return NULL;
	in = BPF_CORE_READ(f, f_inode);
	if (!in)
		return NULL;
	o->ino = BPF_CORE_READ(in, i_ino);
	o->dev = BPF_CORE_READ(in, i_sb, s_dev);
	fmt = BPF_CORE_READ(in, i_mode) & QT_S_IFMT;
	o->mode = fmt;
	if (fmt != QT_S_IFSOCK)
		return f;
	sock = BPF_CORE_READ(f, private_data);
	sk = BPF_CORE_READ(sock, sk);
	if (!sk)
		return f;
	o->mode |= ((__u32)BPF_CORE_READ(sock, type) & 0xff) << 16;
	o->mode |= ((__u32)BPF_CORE_READ(sk, __sk_common.skc_family) & 0xff) << 24;
	if (BPF_CORE_READ(sk, __sk_common.skc_family) != QT_AF_UNIX)
		return f;
	peer = BPF_CORE_READ((struct unix_sock *)sk, peer);
	if (peer)
		o->peer = BPF_CORE_READ(peer, sk_socket, file, f_inode, i_ino);
	return f;
}

/*
 * Which descriptors call class cls names at its exit (*in, *out; *two:
 * both), and its flags; false when the call moved nothing worth a record.
 * The second and third arguments are still in regs at the exit (only the
 * first may have been overwritten by the return value, on arm64: the
 * entry kept it). An open is worth a record when it succeeded: it names
 * a regular file, or truncates one (the caller checks which).
 */
static __always_inline bool data_fds(__u8 cls, __s64 ret, struct pt_regs *regs, __u64 *in, __u64 *out,
				     bool *two, __u8 *flags)
{
	switch (cls) {
	case QT_DC_FD0:
		return ret > 0;
	case QT_DC_IN0_OUT2:
		*out = PT_REGS_PARM3_CORE(regs);
		*two = true;
		return ret > 0;
	case QT_DC_OUT0_IN1:
		*out = *in;
		*in = PT_REGS_PARM2_CORE(regs);
		*two = true;
		return ret > 0;
	case QT_DC_IN0_OUT1:
		*out = PT_REGS_PARM2_CORE(regs);
		*two = true;
		return ret > 0;
	case QT_DC_OPEN_FLAGS1:
	case QT_DC_OPEN_FLAGS2:
	case QT_DC_CREAT:
		if (ret < 0)
			return false;
		if (cls == QT_DC_CREAT || ((cls == QT_DC_OPEN_FLAGS1 ? PT_REGS_PARM2_CORE(regs) :
					    PT_REGS_PARM3_CORE(regs)) & QT_O_TRUNC))
			*flags = QT_DATA_TRUNC;
		*in = ret;
		return true;
	case QT_DC_FTRUNCATE:
		*flags = QT_DATA_TRUNC;
		return ret == 0 && PT_REGS_PARM2_CORE(regs) == 0;
	default:
		return false;
	}
}

/*
 * At a recorded call's exit (c: its context, still holding its entry),
 * the QT_REC_DATA record when it is a data call that moved something,
 * truncated a file, or opened a regular file (then with its name, the
 * last component of its path: d_name, one string read).
 */
static __always_inline void data_exit(struct out o, bool btf, struct task_ctx *c, __u32 tid, __u32 tgid,
				      __s64 ret, struct pt_regs *regs)
{
	struct qt_data_obj o0, o1 = {};
	struct qt_data *r;
	struct file *f;
	__u64 in = c->sys_arg0, out = 0;
	__u32 nr = c->sys_nr;
	bool two = false, open;
	__u8 cls, flags = 0;

	if (!knobs.want_data || nr >= QT_DATA_NRS)
		return;
	cls = data_calls[nr];
	if (cls == QT_DC_NONE || !data_fds(cls, ret, regs, &in, &out, &two, &flags))
		return;
	open = cls == QT_DC_OPEN_FLAGS1 || cls == QT_DC_OPEN_FLAGS2 || cls == QT_DC_CREAT;
	f = data_obj(btf, in, &o0);
	if (open && (o0.mode & QT_S_IFMT) != QT_S_IFREG && !flags)
		return;		/* a directory, a device, a socket opened: no data moved */
	if (two)
		data_obj(btf, out, &o1);
	r = reserve(o, sizeof(*r), QT_REC_DATA, c->sys_ts);
	if (!r)
		return;
	r->h.flags = flags;
	r->end_ts = bpf_ktime_get_ns();
	r->bytes = open ? 0 : ret;
	r->tid = tid;
	r->tgid = tgid;
	r->nr = nr;
	r->pad = 0;
	r->obj[0] = o0;
	r->obj[1] = o1;
	if (open && f && bpf_probe_read_kernel_str(r->name, sizeof(r->name),
						   BPF_CORE_READ(f, f_path.dentry, d_name.name)) > 0)
		r->h.flags |= QT_DATA_NAMED;
	submit(o, r, sizeof(*r));
}

#endif /* QT_DATA_BPF_H */
