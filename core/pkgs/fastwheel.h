/*
 * The wheelhouse fast path of pyrt_pip_install (pip.c): with --wheelhouse
 * DIR, a small embedded Python program installs the requirements from DIR
 * without starting pip, when the case is simple enough to decide without
 * pip's resolver; otherwise it exits PYRT_FASTWHEEL_UNDECIDED before
 * writing anything, and pip runs exactly as it would have.
 *
 * Decided here: the wheels in DIR whose tags this interpreter supports;
 * requirements without extras or direct references; each name gets the
 * highest version satisfying every specifier seen for it, breadth first,
 * following Requires-Dist with their markers evaluated (extra == ""), with
 * no backtracking; installed distributions that satisfy are kept (one
 * counts as installed only with a RECORD whose files are all there; else
 * the same wheel is installed again over it).  Anything else is pip's:
 * extras, a conflict, an installed version that does not satisfy, a
 * missing distribution, unreadable metadata, a Wheel-Version other than
 * 1.x (a newer 1.x gets pip's warning line), a .data/headers directory, a
 * wheel without a RECORD, a wheel whose one .dist-info is not named for it
 * or that carries another .dist-info or .egg-info anywhere (.data
 * included), and a distribution found in any other folder on sys.path
 * (.pth folders included).
 *
 * Installing: every member path is checked before anything is written (no
 * absolute path, "..", backslash, NUL; the joined path stays under its
 * scheme directory, realpath-checked; no symlink is followed), and so are
 * the sizes the zip declares, before a member is read: a member over 1 MiB
 * may unpack to at most 200 times its compressed size, a wheel to at most
 * PYRT_EXTRACT_DEFAULT_BYTES (extract.h) in all, or the wheel is refused
 * (PYRT_FASTWHEEL_REFUSED: a baseline failure, exit 10, naming the wheel
 * and the member).  Members are copied in 1 MiB chunks, hashed as they are
 * written, so memory does not grow with a member's size; .data purelib,
 * platlib and data map to this interpreter's sysconfig paths.  A wheel
 * with .data/scripts or console/gui entry points is pip's: their #! lines
 * and launchers are pip's own (an exec wrapper where the interpreter's
 * path is long or has a space), byte for byte.  Each distribution is
 * staged in <purelib>/.pyrt-fastwheel/<name-version>/ (the same filesystem
 * as every scheme it writes to, or pip's), the .py files compiled once
 * there (naming their final paths), then INSTALLER "pyrt" and a RECORD
 * listing every file (the .pyc too) written into the staged .dist-info;
 * then its files are renamed into place, dependencies first, and its
 * .dist-info last, with one fsync of the folder: it counts as installed
 * only once everything is there, so pip uninstalls it cleanly.  A run
 * stopped midway (SIGKILL, a full disk) leaves a staging folder: the next
 * run first finishes one whose RECORD is there and removes one whose is
 * not; on SIGINT, SIGTERM or an error it does so itself before exiting
 * (130, or 5).
 *
 * The program is py/fastwheel.py (pyrt_py_fastwheel, py_programs.h).
 * argv: python3 -I -S -B -c pyrt_py_fastwheel WHEELHOUSE -- REQ...
 * (-S: no site-packages .pth runs; the program adds the site folders.)
 */
#ifndef PYRT_FASTWHEEL_H
#define PYRT_FASTWHEEL_H

/** Exit codes besides 0 (installed, or nothing to install). */
enum {
	PYRT_FASTWHEEL_UNDECIDED = 3, /**< nothing written: run pip */
	PYRT_FASTWHEEL_REFUSED = 4,   /**< a hostile wheel, named; nothing written */
	PYRT_FASTWHEEL_FAILED = 5,    /**< writing failed midway ("ERROR: " line) */
};

#endif
