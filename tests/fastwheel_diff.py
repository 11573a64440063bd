#!/usr/bin/python3
"""The wheel corpus and the tree comparison of the differential test of the
wheelhouse installer (tests/e2e_fastwheel_diff.sh runs it; py/fastwheel.py
is what it tests, through pyrt).

    fastwheel_diff.py corpus OUT          the cases: OUT/CASE/wh/*.whl,
                                          OUT/CASE/req.txt, OUT/cases.tsv
    fastwheel_diff.py pre CASE PREFIX     what a case puts in a runtime first
    fastwheel_diff.py snap PREFIX OUT     every path under PREFIX: kind, mode,
                                          SHA-256 (JSON)
    fastwheel_diff.py compare A_PREFIX A_BEFORE B_PREFIX B_BEFORE
                                          what the install changed in copy A
                                          against what it changed in copy B;
                                          one line per difference, exit 1
                                          when there is one

Run with Debian's python3 (the fixture runtime is Debian's python3.11, so
its best tag is the host's, ranked by the vendored packaging of Debian's pip
wheel).
"""
import base64
import csv
import hashlib
import io
import json
import os
import stat
import sys
import zipfile

CORPUS = []


def case(name, layouts='short', pre=''):
    """Register a builder: it writes wheels into WH and returns the
    requirement lines.  layouts: where the runtime lives for it (short,
    long: a prefix past the kernel's 127-byte #! limit, spaced: a space in
    the prefix)."""
    def reg(fn):
        CORPUS.append((name, layouts, pre, fn))
        return fn
    return reg


def b64(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()


def wheel(wh, filename, name, ver, files, purelib=True, tag='py3-none-any',
          wheel_version='1.0', meta='', info=None, extra_info=None, record=True,
          modes=None, method=zipfile.ZIP_DEFLATED, attrs=None, algos=None,
          omit=()):
    """A wheel with a true RECORD: files {member: bytes|str}, modes
    {member: 0o755}, extra_info {name: text} beside METADATA and WHEEL;
    attrs {member: the whole mode, file type bits included}; algos
    {member: 'sha512'}: its RECORD row's hash; omit: members RECORD does
    not list."""
    info = info or '%s-%s.dist-info' % (name.replace('-', '_'), ver)
    members = dict(files)
    members[info + '/METADATA'] = ('Metadata-Version: 2.1\nName: %s\nVersion: %s\n%s'
                                   % (name, ver, meta))
    members[info + '/WHEEL'] = ('Wheel-Version: %s\nGenerator: pyrt-corpus\n'
                                'Root-Is-Purelib: %s\nTag: %s\n'
                                % (wheel_version, 'true' if purelib else 'false', tag))
    for k, v in (extra_info or {}).items():
        members[info + '/' + k] = v
    rows = []
    with zipfile.ZipFile(os.path.join(wh, filename), 'w', method) as z:
        for m, data in members.items():
            data = data.encode() if isinstance(data, str) else data
            zi = zipfile.ZipInfo(m, (2024, 1, 1, 0, 0, 0))
            zi.compress_type = method
            zi.external_attr = (0o100000 | (modes or {}).get(m, 0o644)) << 16
            if m in (attrs or {}):
                zi.external_attr = attrs[m] << 16
            z.writestr(zi, data)
            if m in omit:
                continue
            algo = (algos or {}).get(m, 'sha256')
            digest = base64.urlsafe_b64encode(hashlib.new(algo, data).digest()).rstrip(b'=').decode()
            rows.append((m, '%s=%s' % (algo, digest), str(len(data))))
        if record:
            rows.append((info + '/RECORD', '', ''))
            out = io.StringIO()
            csv.writer(out, lineterminator='\n').writerows(rows)
            z.writestr(info + '/RECORD', out.getvalue())


def best_tag():
    # the tags of pip's vendored packaging, from the pip wheel the fixture
    # runtime is given (tests/fixtures/make-runtime.sh): what its pip ranks
    import glob
    sys.path.insert(0, sorted(glob.glob('/usr/share/python-wheels/pip-*.whl'))[-1])
    from pip._vendor.packaging.tags import sys_tags
    return str(next(iter(sys_tags())))


# --- the cases ---------------------------------------------------------------

@case('pure', layouts='short long spaced')
def _(wh):
    wheel(wh, 'pure_pkg-1.0-py3-none-any.whl', 'pure-pkg', '1.0', {
        'pure_pkg/__init__.py': 'from .sub import mod\nVALUE = 1\n',
        'pure_pkg/sub/__init__.py': '',
        'pure_pkg/sub/mod.py': 'def f():\n    return __file__\n',
        'pure_pkg/data.json': '{"a": 1}\n',
        'pure_pkg/run.sh': '#!/bin/sh\necho run\n',
        'pure_pkg/broken.py': 'def (:\n',          # compiles to nothing
        'pure_pkg/donn\u00e9es.txt': 'unicode name\n',
        'pure_pkg/a,b "q".txt': 'csv quoting in RECORD\n',
        'pure_pkg/empty.txt': '',
    }, modes={'pure_pkg/run.sh': 0o755})
    return ['pure-pkg']


@case('data-spelled-differently', layouts='short spaced')
def _(wh):
    # the .data folder in the normalised spelling, the .dist-info in the
    # project's own: pip takes every top-level *.data folder as the data
    # schemes (issue 25, item 11)
    wheel(wh, 'foo_qux-1.0-py3-none-any.whl', 'Foo.Qux', '1.0', {
        'foo_qux/__init__.py': '',
        'foo_qux-1.0.data/data/share/fooqux.txt': 'data scheme\n',
        'foo_qux-1.0.data/purelib/fooqux_pure.py': 'P = 1\n',
    }, info='Foo.Qux-1.0.dist-info')
    return ['Foo_Qux']


@case('exec-bit-without-file-type')
def _(wh):
    # 0755 with no S_IFREG in external_attr: pip writes 0644
    wheel(wh, 'xb_pkg-1.0-py3-none-any.whl', 'xb-pkg', '1.0', {
        'xb_pkg/__init__.py': '', 'xb_pkg/tool.sh': '#!/bin/sh\n', 'xb_pkg/real.sh': '#!/bin/sh\n',
    }, attrs={'xb_pkg/tool.sh': 0o755}, modes={'xb_pkg/real.sh': 0o755})
    return ['xb-pkg']


@case('record-sha512-and-omitted')
def _(wh):
    # pip keeps the wheel's rows as they are, and lists what RECORD omits
    # with no hash
    wheel(wh, 'rec_pkg-1.0-py3-none-any.whl', 'rec-pkg', '1.0', {
        'rec_pkg/__init__.py': 'A = 1\n', 'rec_pkg/b.txt': 'b\n', 'rec_pkg/c.txt': 'c\n',
    }, algos={'rec_pkg/__init__.py': 'sha512', 'rec_pkg/b.txt': 'sha384'},
       omit={'rec_pkg/c.txt'})
    return ['rec-pkg']


@case('stored')
def _(wh):
    wheel(wh, 'stored_pkg-2.0-py3-none-any.whl', 'stored-pkg', '2.0',
          {'stored_pkg.py': 'X = 2\n', 'stored_pkg_data/blob.bin': bytes(range(256)) * 64},
          method=zipfile.ZIP_STORED)
    return ['stored-pkg']


@case('platlib')
def _(wh):
    tag = best_tag()
    wheel(wh, 'plat_pkg-1.0-%s.whl' % tag, 'plat-pkg', '1.0', {
        'plat_pkg/__init__.py': 'from ._native import X\n',
        'plat_pkg/_native.py': 'X = 3\n',
        'plat_pkg/_speed.cpython-311-x86_64-linux-gnu.so': b'\x7fELF not really',
    }, purelib=False, tag=tag, modes={'plat_pkg/_speed.cpython-311-x86_64-linux-gnu.so': 0o755})
    return ['plat-pkg']


@case('data', layouts='short long spaced')
def _(wh):
    wheel(wh, 'data_pkg-1.0-py3-none-any.whl', 'data-pkg', '1.0', {
        'data_pkg/__init__.py': '',
        'data_pkg-1.0.data/purelib/data_pure.py': 'P = 1\n',
        'data_pkg-1.0.data/platlib/data_plat/__init__.py': 'Q = 2\n',
        'data_pkg-1.0.data/data/share/data-pkg/readme.txt': 'data scheme\n',
        'data_pkg-1.0.data/data/share/data-pkg/tool.py': 'print(1)\n',
        'data_pkg-1.0.data/data/etc/data-pkg.conf': 'k = v\n',
    })
    return ['data-pkg']


@case('headers')
def _(wh):
    wheel(wh, 'hdr_pkg-1.0-py3-none-any.whl', 'hdr-pkg', '1.0', {
        'hdr_pkg.py': '',
        'hdr_pkg-1.0.data/headers/hdr.h': '#define HDR 1\n',
    })
    return ['hdr-pkg']


@case('entry-points', layouts='short long spaced')
def _(wh):
    wheel(wh, 'ep_pkg-1.0-py3-none-any.whl', 'ep-pkg', '1.0', {
        'ep_pkg/__init__.py': 'def main():\n    print("ep")\n',
    }, extra_info={'entry_points.txt': '[console_scripts]\nep-cli = ep_pkg:main\n'
                   '[gui_scripts]\nep-gui = ep_pkg:main\n'
                   '[pyrt.plugins]\nnot-a-script = ep_pkg:main\n'})
    return ['ep-pkg']


@case('scripts', layouts='short long spaced')
def _(wh):
    s = 'scr_pkg-1.0.data/scripts/'
    wheel(wh, 'scr_pkg-1.0-py3-none-any.whl', 'scr-pkg', '1.0', {
        'scr_pkg.py': '',
        s + 'scr-plain': '#!python\nprint("plain")\n',
        s + 'scr-w': '#!pythonw\nprint("w")\n',
        s + 'scr-crlf': '#!python\r\nprint("crlf")\r\n',
        s + 'scr-u': '#!python -u\nprint("u")\n',
        s + 'scr-sh': '#!/bin/sh\necho sh\n',
    }, modes={s + n: 0o755 for n in ('scr-plain', 'scr-w', 'scr-crlf', 'scr-u')})
    return ['scr-pkg']


@case('plugin-only-entry-points')
def _(wh):
    # entry points, but no console or gui scripts: nothing for pip to write
    wheel(wh, 'epx_pkg-1.0-py3-none-any.whl', 'epx-pkg', '1.0', {'epx_pkg.py': ''},
          extra_info={'entry_points.txt': '[pyrt.plugins]\nx = epx_pkg:main\n'})
    return ['epx-pkg']


@case('build-tag-vs-platform-tag')
def _(wh):
    tag = best_tag()
    wheel(wh, 'bt_pkg-1.0-7-py3-none-any.whl', 'bt-pkg', '1.0',
          {'bt_pkg.py': 'WHICH = "py3-none-any build 7"\n'})
    wheel(wh, 'bt_pkg-1.0-%s.whl' % tag, 'bt-pkg', '1.0',
          {'bt_pkg.py': 'WHICH = "%s"\n' % tag}, purelib=False, tag=tag)
    return ['bt-pkg']


@case('build-tags')
def _(wh):
    for b in ('1', '2', '10'):
        wheel(wh, 'bn_pkg-1.0-%s-py3-none-any.whl' % b, 'bn-pkg', '1.0',
              {'bn_pkg.py': 'BUILD = %s\n' % b})
    return ['bn-pkg']


@case('deps-markers')
def _(wh):
    wheel(wh, 'app_pkg-1.0-py3-none-any.whl', 'app-pkg', '1.0', {'app_pkg.py': ''},
          meta='Requires-Dist: lib-pkg (>=1.0,<3)\n'
               'Requires-Dist: never-pkg ; python_version < "3"\n'
               'Requires-Dist: Lib.Pkg>=1.5\n')
    for v in ('1.0', '2.0', '3.0'):
        wheel(wh, 'lib_pkg-%s-py3-none-any.whl' % v, 'Lib.Pkg', v,
              {'lib_pkg.py': 'V = "%s"\n' % v}, info='lib_pkg-%s.dist-info' % v)
    return ['app-pkg', 'lib-pkg!=2.1']


@case('requires-python')
def _(wh):
    # the newest needs another Python: pip takes the one before
    wheel(wh, 'rp_pkg-1.0-py3-none-any.whl', 'rp-pkg', '1.0', {'rp_pkg.py': 'V = 1\n'})
    wheel(wh, 'rp_pkg-2.0-py3-none-any.whl', 'rp-pkg', '2.0', {'rp_pkg.py': 'V = 2\n'},
          meta='Requires-Python: >=4\n')
    return ['rp-pkg']


@case('wheel-version-1.9')
def _(wh):
    wheel(wh, 'wv19_pkg-1.0-py3-none-any.whl', 'wv19-pkg', '1.0', {'wv19_pkg.py': ''},
          wheel_version='1.9')
    return ['wv19-pkg']


@case('wheel-version-2.0')
def _(wh):
    wheel(wh, 'wv20_pkg-1.0-py3-none-any.whl', 'wv20-pkg', '1.0', {'wv20_pkg.py': ''},
          wheel_version='2.0')
    return ['wv20-pkg']


@case('duplicate-dist-info')
def _(wh):
    # two .dist-info of its own name, other versions
    wheel(wh, 'dup_pkg-1.0-py3-none-any.whl', 'dup-pkg', '1.0', {
        'dup_pkg.py': '',
        'dup_pkg-0.9.dist-info/METADATA': 'Metadata-Version: 2.1\nName: dup-pkg\nVersion: 0.9\n',
    })
    return ['dup-pkg']


@case('other-dist-info')
def _(wh):
    # another distribution's .dist-info: it would show installed
    wheel(wh, 'carrier_pkg-1.0-py3-none-any.whl', 'carrier-pkg', '1.0', {
        'carrier_pkg.py': '',
        'python_pptx-0.6.21.dist-info/METADATA': 'Metadata-Version: 2.1\nName: python-pptx\nVersion: 0.6.21\n',
        'python_pptx-0.6.21.dist-info/RECORD': '../../../../../../../../tmp/pyrt-victim,,\n',
    })
    return ['carrier-pkg']


@case('dist-info-under-data')
def _(wh):
    wheel(wh, 'hid_pkg-1.0-py3-none-any.whl', 'hid-pkg', '1.0', {
        'hid_pkg.py': '',
        'hid_pkg-1.0.data/purelib/python_docx-9.9.dist-info/METADATA':
            'Metadata-Version: 2.1\nName: python-docx\nVersion: 9.9\n',
    })
    return ['hid-pkg']


@case('egg-info')
def _(wh):
    wheel(wh, 'egg_pkg-1.0-py3-none-any.whl', 'egg-pkg', '1.0', {
        'egg_pkg.py': '',
        'openpyxl.egg-info/PKG-INFO': 'Metadata-Version: 1.1\nName: openpyxl\nVersion: 9.9\n',
    })
    return ['egg-pkg']


@case('installed-elsewhere', pre='elsewhere')
def _(wh):
    wheel(wh, 'else_pkg-2.0-py3-none-any.whl', 'else-pkg', '2.0', {'else_pkg.py': 'V = 2\n'})
    return ['else-pkg']


@case('huge-ratio')
def _(wh):
    # 8 MiB of zeros deflate to about 8 KB: 1000:1, over the 200:1 cap
    wheel(wh, 'bomb_pkg-1.0-py3-none-any.whl', 'bomb-pkg', '1.0', {
        'bomb_pkg/__init__.py': '', 'bomb_pkg/zeros.bin': bytes(8 << 20)})
    return ['bomb-pkg']


@case('path-traversal')
def _(wh):
    wheel(wh, 'trav_pkg-1.0-py3-none-any.whl', 'trav-pkg', '1.0', {
        'trav_pkg/__init__.py': '', '../../../../../../../trav_evil.py': 'print("pwned")\n'})
    return ['trav-pkg']


@case('data-traversal')
def _(wh):
    wheel(wh, 'dtrav_pkg-1.0-py3-none-any.whl', 'dtrav-pkg', '1.0', {
        'dtrav_pkg/__init__.py': '', 'dtrav_pkg-1.0.data/data/../../../../../dtrav_evil.py': ''})
    return ['dtrav-pkg']


@case('no-record')
def _(wh):
    wheel(wh, 'norec_pkg-1.0-py3-none-any.whl', 'norec-pkg', '1.0', {'norec_pkg.py': ''},
          record=False)
    return ['norec-pkg']


@case('metadata-mismatch')
def _(wh):
    # the file name says one version, METADATA another
    wheel(wh, 'mm_pkg-1.0-py3-none-any.whl', 'mm-pkg', '1.1', {'mm_pkg.py': ''},
          info='mm_pkg-1.0.dist-info')
    return ['mm-pkg']


def pre_elsewhere(prefix):
    # else-pkg 1.0 in the stdlib folder: on sys.path, not site-packages
    d = os.path.join(prefix, 'lib', 'python3.11')
    info = os.path.join(d, 'else_pkg-1.0.dist-info')
    os.mkdir(info)
    for name, text in (('METADATA', 'Metadata-Version: 2.1\nName: else-pkg\nVersion: 1.0\n'),
                       ('INSTALLER', 'pip\n'),
                       ('RECORD', 'else_pkg.py,,\nelse_pkg-1.0.dist-info/METADATA,,\n')):
        with open(os.path.join(info, name), 'w') as f:
            f.write(text)
    with open(os.path.join(d, 'else_pkg.py'), 'w') as f:
        f.write('V = 1\n')


# --- snapshots and the comparison --------------------------------------------

def snap(prefix):
    # a file by its inode, size and ctime: any write or chmod changes the
    # ctime, so a file whose entry is unchanged was not touched (hashing
    # the runtime's 27 MB four times per case was most of the test's time)
    out = {}
    for root, dirs, files in os.walk(prefix):
        for n in dirs + files:
            p = os.path.join(root, n)
            st = os.lstat(p)
            rel = os.path.relpath(p, prefix)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ['l', 0, os.readlink(p)]
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ['d', stat.S_IMODE(st.st_mode), '']
            else:
                out[rel] = ['f', stat.S_IMODE(st.st_mode),
                            '%d:%d:%d' % (st.st_ino, st.st_size, st.st_ctime_ns)]
    return out


def changes(prefix, before):
    """What the install added or changed, less the caches Python wrote for
    modules that were there before (pip's own and the stdlib's, imported by
    pip; the installer runs -B and writes none)."""
    after = snap(prefix)
    out = {}
    for rel, e in after.items():
        if before.get(rel) == e:
            continue
        parts = rel.split(os.sep)
        if e[0] == 'f' and parts[-2:-1] == ['__pycache__']:
            src = os.path.join('', *parts[:-2], parts[-1].split('.')[0] + '.py')
            if src in before:
                continue
        out[rel] = e
    gone = sorted(set(before) - set(after))
    # the __pycache__ folders of those caches, left empty by the filter
    for rel in list(out):
        if out[rel][0] == 'd' and rel.endswith('__pycache__'):
            if not any(k.startswith(rel + os.sep) for k in out):
                del out[rel]
    return out, gone


def norm(data, prefix):
    return data.replace(prefix.encode(), b'<PREFIX>')


def record_rows(prefix, rel, problems, who):
    """RECORD's rows in its order, verbatim: only INSTALLER's (pyrt against
    pip) is set aside, and the row of a file that names its copy's prefix
    (a launcher) is hashed again with the prefix written as <PREFIX>, like
    the files themselves.  The line ends go with them."""
    path = os.path.join(prefix, rel)
    base = os.path.dirname(os.path.dirname(path))
    with open(path, 'rb') as f:
        raw = f.read()
    rows = []
    ends = 'CRLF' if raw.count(b'\r\n') == raw.count(b'\n') else 'LF'
    for row in csv.reader(io.StringIO(raw.decode('utf-8'), newline='')):
        if len(row) != 3:
            problems.append('%s: %s: a row of %d fields: %r' % (who, rel, len(row), row))
            continue
        p, h, n = row
        if p.endswith('.dist-info/INSTALLER'):
            h = n = '(INSTALLER aside)'
        elif h:
            try:
                with open(os.path.normpath(os.path.join(base, p)), 'rb') as g:
                    data = g.read()
            except OSError:
                data = b''
            if prefix.encode() in data:
                h = 'sha256=' + b64(norm(data, prefix)) + ' (prefix as <PREFIX>)'
        rows.append((p, h, n))
    return rows, ends


def compare(a_prefix, a_before, b_prefix, b_before):
    problems = []
    ca, gone_a = changes(a_prefix, a_before)
    cb, gone_b = changes(b_prefix, b_before)
    if gone_a != gone_b:
        problems.append('removed: fast %s, pip %s' % (gone_a, gone_b))
    for rel in sorted(set(ca) | set(cb)):
        if rel not in cb:
            problems.append('only the fast path wrote %s' % rel)
            continue
        if rel not in ca:
            problems.append('only pip wrote %s' % rel)
            continue
        ea, eb = ca[rel], cb[rel]
        if ea[0] != eb[0]:
            problems.append('%s: a %s here, a %s from pip' % (rel, ea[0], eb[0]))
            continue
        if ea[1] != eb[1]:
            problems.append('%s: mode %o, pip %o' % (rel, ea[1], eb[1]))
        if ea[0] != 'f':
            continue
        name = os.path.basename(rel)
        parent = os.path.basename(os.path.dirname(rel))
        if parent.endswith('.dist-info') and name == 'INSTALLER':
            continue
        if parent.endswith('.dist-info') and name == 'RECORD':
            (ra, ea_), (rb, eb_) = (record_rows(a_prefix, rel, problems, 'fast'),
                                    record_rows(b_prefix, rel, problems, 'pip'))
            for r in sorted(set(ra) - set(rb)):
                problems.append('%s: a row only the fast path wrote: %r' % (rel, r))
            for r in sorted(set(rb) - set(ra)):
                problems.append('%s: a row only pip wrote: %r' % (rel, r))
            if set(ra) == set(rb) and ra != rb:
                problems.append('%s: the rows are pip\'s, in another order' % rel)
            if ea_ != eb_:
                problems.append('%s: lines end %s, pip\'s %s' % (rel, ea_, eb_))
            continue
        with open(os.path.join(a_prefix, rel), 'rb') as f:
            da = norm(f.read(), a_prefix)
        with open(os.path.join(b_prefix, rel), 'rb') as f:
            db = norm(f.read(), b_prefix)
        if rel.endswith('.pyc'):
            # magic, flags, then the source's mtime and size: the mtime is
            # when each wrote the source; the code object after it names
            # the source's path (the same length in both copies)
            da, db = da[:8] + da[12:], db[:8] + db[12:]
        if da != db:
            problems.append('%s: the content differs from pip\'s' % rel)
    return problems, len(ca)


def main(argv):
    cmd = argv[1]
    if cmd == 'corpus':
        out = argv[2]
        os.makedirs(out)
        with open(os.path.join(out, 'cases.tsv'), 'w') as tsv:
            for name, layouts, pre, fn in CORPUS:
                wh = os.path.join(out, name, 'wh')
                os.makedirs(wh)
                reqs = fn(wh)
                with open(os.path.join(out, name, 'req.txt'), 'w') as f:
                    f.write(''.join(r + '\n' for r in reqs))
                tsv.write('%s\t%s\t%s\n' % (name, layouts, pre or '-'))
        return 0
    if cmd == 'pre':
        {'elsewhere': pre_elsewhere}[argv[2]](argv[3])
        return 0
    if cmd == 'snap':
        with open(argv[3], 'w') as f:
            json.dump(snap(argv[2]), f)
        return 0
    if cmd == 'compare':
        a_prefix, b_prefix = argv[2], argv[4]
        with open(argv[3]) as f:
            a_before = json.load(f)
        with open(argv[5]) as f:
            b_before = json.load(f)
        problems, n = compare(a_prefix, a_before, b_prefix, b_before)
        for p in problems:
            print('  ' + p)
        print('  (%d paths written, %d differences)' % (n, len(problems)))
        return 1 if problems else 0
    print('usage: see the docstring', file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
