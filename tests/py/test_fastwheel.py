"""Unit tests of the wheelhouse installer's pure parts (py/fastwheel.py).

ctest: test_py_unit (python3 -m unittest on tests/py/test_*.py).

The installer is imported as a module (its main() runs only under -c) and
bound to a packaging of the test's choice: pip's vendored one from the pip
wheel Debian ships (the one the managed runtime's pip decides with), and
Debian's python3-packaging.  Its answers are compared with packaging's own.
"""
import base64
import contextlib
import csv
import glob
import hashlib
import importlib
import io
import itertools
import os
import re
import shutil
import sys
import tempfile
import unittest
import warnings
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'py'))
import fastwheel  # noqa: E402  (py/fastwheel.py)

PIP_WHEELS = sorted(glob.glob('/usr/share/python-wheels/pip-*.whl'))


def packagings():
    """(label, prefix) of each packaging to compare against."""
    out = []
    if PIP_WHEELS:
        if PIP_WHEELS[-1] not in sys.path:
            # before a pip installed on this system: the wheel is the pip
            # the test runtime gets (tests/fixtures/make-runtime.sh)
            sys.path.insert(0, PIP_WHEELS[-1])
        out.append(('pip._vendor.packaging (%s)'
                    % os.path.basename(PIP_WHEELS[-1]), 'pip._vendor.packaging'))
    try:
        importlib.import_module('packaging.markers')
        out.append(('packaging', 'packaging'))
    except ImportError:
        pass
    return out


def bind(prefix):
    mods = [importlib.import_module(prefix + '.' + m)
            for m in ('utils', 'tags', 'specifiers', 'version')]
    fastwheel.bind_packaging(*mods)
    return importlib.import_module(prefix + '.markers')


ENVIRONMENTS = [
    dict(python_version='3.11', python_full_version='3.11.2',
         implementation_version='3.11.2', sys_platform='linux',
         platform_system='Linux', os_name='posix', platform_machine='x86_64'),
    dict(python_version='3.12', python_full_version='3.12.0rc1',
         implementation_version='3.12.0rc1', sys_platform='linux',
         platform_system='Linux', os_name='posix', platform_machine='aarch64'),
    dict(python_version='3.8', python_full_version='3.8.10',
         implementation_version='3.8.10', sys_platform='win32',
         platform_system='Windows', os_name='nt', platform_machine='AMD64'),
    dict(python_version='3.13', python_full_version='3.13.0a1',
         implementation_version='3.13.0a1', sys_platform='darwin',
         platform_system='Darwin', os_name='posix', platform_machine='arm64'),
]
COMMON = dict(implementation_name='cpython', platform_release='6.1.0-18-amd64',
              platform_version='#1 SMP Debian', extra='',
              platform_python_implementation='CPython')

VERSION_VARS = ('python_version', 'python_full_version', 'implementation_version')
VERSION_LITERALS = ('3', '3.8', '3.11', '3.11.2', '3.12', '3.12.0rc1',
                    '3.11.0b1', '3.13.0a1', '2.7', '3.11.*', '4.0.dev1', '3.8.10')
NAME_VARS = ('sys_platform', 'platform_system', 'os_name', 'platform_machine',
             'implementation_name', 'platform_python_implementation', 'extra')
NAME_LITERALS = ('linux', 'win32', 'Linux', 'posix', 'nt', 'x86_64', 'cpython',
                 'CPython', 'lin', '')
OPS = ('==', '!=', '<', '<=', '>', '>=', '~=', '===', 'in', 'not in')


def marker_table():
    """Every variable against every literal and operator, both ways round,
    and a few and/or/parentheses combinations."""
    atoms = []
    for var, lit in itertools.chain(
            itertools.product(VERSION_VARS, VERSION_LITERALS),
            itertools.product(NAME_VARS, NAME_LITERALS)):
        for op in OPS:
            atoms.append('%s %s "%s"' % (var, op, lit))
            atoms.append('"%s" %s %s' % (lit, op, var))
    combos = []
    for a, b in zip(atoms[::37], atoms[5::41]):
        combos.append('%s and %s' % (a, b))
        combos.append('(%s) or %s' % (a, b))
        combos.append('%s or (%s and %s)' % (b, a, a))
    return atoms + combos


def packaging_answer(markers, text, env):
    warnings.simplefilter('ignore', DeprecationWarning)  # 21.3's LegacyVersion
    try:
        return markers.Marker(text).evaluate(env)
    except Exception as e:
        return type(e).__name__


def fast_answer(text, env):
    fastwheel.ENV = env
    try:
        return fastwheel.marker_true(text)
    except fastwheel.Undecided:
        return 'undecided'
    except Exception as e:
        return type(e).__name__
    finally:
        fastwheel.ENV = None


class Markers(unittest.TestCase):
    def test_markers_match_packaging(self):
        table = marker_table()
        compared = 0
        for label, prefix in packagings():
            markers = bind(prefix)
            differ, declined = [], 0
            for base, text in itertools.product(ENVIRONMENTS, table):
                env = dict(COMMON, **base)
                want = packaging_answer(markers, text, env)
                got = fast_answer(text, env)
                compared += 1
                if got == 'undecided':
                    declined += 1  # pip decides: never a wrong answer
                elif got != want:
                    differ.append((text, base['python_full_version'], got, want))
            print('\nmarkers against %s: %d compared (%d markers x %d '
                  'environments), %d left to pip, %d differ'
                  % (label, len(table) * len(ENVIRONMENTS), len(table),
                     len(ENVIRONMENTS), declined, len(differ)))
            self.assertEqual(differ[:10], [], '%d of %d differ from %s'
                             % (len(differ), len(table) * len(ENVIRONMENTS), label))
        self.assertGreater(compared, 10000)


class WheelTags(unittest.TestCase):
    """Of the wheels in a wheelhouse, the one pip 23 would take: the highest
    version, then the tag sys_tags() ranks first, then the build tag."""

    def choose(self, names):
        with tempfile.TemporaryDirectory() as wh:
            for n in names:
                open(os.path.join(wh, n), 'wb').close()
            found = fastwheel.wheelhouse(wh)
            ws = found.get('demo', [])
            if not ws:
                return None
            return os.path.basename(max(ws, key=fastwheel.preference).path)

    def test_tag_order(self):
        for label, prefix in packagings():
            bind(prefix)
            tags = importlib.import_module(prefix + '.tags')
            sys_tags = list(tags.sys_tags())
            best, worse = sys_tags[0], sys_tags[-1]
            interp_tag = '%s-%s-%s' % (best.interpreter, best.abi, best.platform)
            last_tag = '%s-%s-%s' % (worse.interpreter, worse.abi, worse.platform)
            with self.subTest(label):
                self.assertEqual(self.choose([
                    'demo-1.0-%s.whl' % last_tag, 'demo-1.0-%s.whl' % interp_tag,
                    'demo-1.0-py3-none-any.whl']), 'demo-1.0-%s.whl' % interp_tag)
                # the version first, whatever the tag
                self.assertEqual(self.choose([
                    'demo-1.0-%s.whl' % interp_tag, 'demo-1.1-%s.whl' % last_tag]),
                    'demo-1.1-%s.whl' % last_tag)
                # a build tag ranks after the tag, as in pip
                self.assertEqual(self.choose([
                    'demo-1.0-7-py3-none-any.whl', 'demo-1.0-%s.whl' % interp_tag]),
                    'demo-1.0-%s.whl' % interp_tag)
                self.assertEqual(self.choose([
                    'demo-1.0-7-%s.whl' % interp_tag, 'demo-1.0-2-%s.whl' % interp_tag]),
                    'demo-1.0-7-%s.whl' % interp_tag)
                # a tag this interpreter does not support is not a candidate
                self.assertIsNone(self.choose(['demo-1.0-cp27-cp27m-win32.whl']))


def build_wheel(wh):
    return build_wheel_rows(wh)[0]


def build_wheel_rows(wh):
    """demo-pkg 1.0 with a RECORD as wheels in the wild have them: a row
    hashed with sha512, one with sha256, a file it omits (data.bin), and
    its own row."""
    info = 'demo_pkg-1.0.dist-info'
    path = os.path.join(wh, 'demo_pkg-1.0-py3-none-any.whl')
    members = {
        'demo_pkg/__init__.py': b'VALUE = 1\n',
        'demo_pkg/data.bin': bytes(range(256)) * 64,
        'demo_pkg/sub/mod.py': b'def f():\n    return 2\n',
        'demo_pkg/sub/broken.py': b'def (:\n',
        'demo_pkg-1.0.data/data/share/demo.txt': b'shared\n',
        info + '/METADATA': b'Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n',
        info + '/WHEEL': b'Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
    }
    rows = []
    for m, data in members.items():
        if m == 'demo_pkg/data.bin':
            continue
        algo = 'sha512' if m.endswith('.py') else 'sha256'
        d = base64.urlsafe_b64encode(hashlib.new(algo, data).digest()).rstrip(b'=').decode()
        rows.append('%s,%s=%s,%d' % (m, algo, d, len(data)))
    rows.append(info + '/RECORD,,')
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
        for m, data in members.items():
            z.writestr(m, data)
        z.writestr(info + '/RECORD', '\n'.join(rows) + '\n')
    return path, rows


class Record(unittest.TestCase):
    def test_record_rows_as_pip(self):
        # pip 23 keeps the wheel's rows (get_csv_rows_for_installed), each
        # under its installed path; what the wheel's RECORD omits, and the
        # caches, get no hash; INSTALLER is hashed; sorted, CRLF
        label, prefix = packagings()[0]
        bind(prefix)
        with tempfile.TemporaryDirectory() as tmp:
            wh, root = os.path.join(tmp, 'wh'), os.path.join(tmp, 'root')
            os.makedirs(wh)
            _, wheel_rows = build_wheel_rows(wh)
            paths = {k: os.path.join(root, k) for k in
                     ('purelib', 'platlib', 'scripts', 'data')}
            paths['platlib'] = paths['purelib']
            order, notes = fastwheel.resolve(['demo-pkg'], fastwheel.wheelhouse(wh), {})
            self.assertEqual([w.name for w in order], ['demo-pkg'])
            w = order[0]
            fastwheel.plan(w, paths)
            fastwheel.run(order, paths, [None])
            site = paths['purelib']
            rec = os.path.join(site, 'demo_pkg-1.0.dist-info', 'RECORD')
            with open(rec, 'rb') as f:
                raw = f.read()
            self.assertTrue(raw.endswith(b'\r\n') and raw.count(b'\n') == raw.count(b'\r\n'))
            rows = list(csv.reader(io.StringIO(raw.decode(), newline='')))
            self.assertEqual(rows, sorted(rows))
            by = {r[0]: (r[1], r[2]) for r in rows}
            for line in wheel_rows:
                p, d, n = line.split(',')
                if p.startswith('demo_pkg-1.0.data/data/'):
                    p = '../data/' + p[len('demo_pkg-1.0.data/data/'):]
                self.assertEqual(by.pop(p), (d, n), p)
            self.assertEqual(by.pop('demo_pkg/data.bin'), ('', ''))
            inst = by.pop('demo_pkg-1.0.dist-info/INSTALLER')
            self.assertEqual(inst[1], '5')
            self.assertTrue(inst[0].startswith('sha256='))
            self.assertEqual(by.pop('demo_pkg-1.0.dist-info/REQUESTED')[1], '0')
            # what is left: the caches, with no hash, as pip writes them
            self.assertTrue(by)
            for p, v in by.items():
                self.assertTrue(p.endswith('.pyc'), p)
                self.assertEqual(v, ('', ''), p)
            self.assertFalse(any('broken.cpython' in n for n in by))
            listed = {os.path.normpath(os.path.join(site, r[0])) for r in rows}
            on_disk = {os.path.join(d, n) for d, _, ns in os.walk(root) for n in ns}
            self.assertEqual(on_disk, listed)
            self.assertFalse(os.path.exists(os.path.join(site, fastwheel.STAGING)))

    def test_record_listing_a_missing_file_is_pips(self):
        label, prefix = packagings()[0]
        bind(prefix)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'stray_pkg-1.0-py3-none-any.whl')
            info = 'stray_pkg-1.0.dist-info'
            with zipfile.ZipFile(path, 'w') as z:
                z.writestr('stray_pkg.py', '')
                z.writestr(info + '/METADATA', 'Metadata-Version: 2.1\nName: stray-pkg\nVersion: 1.0\n')
                z.writestr(info + '/WHEEL', 'Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n')
                z.writestr(info + '/RECORD', 'stray_pkg.py,,\nbar.py,,\n%s/RECORD,,\n' % info)
            order, _ = fastwheel.resolve(['stray-pkg'], fastwheel.wheelhouse(tmp), {})
            paths = {k: os.path.join(tmp, 'root', k) for k in ('purelib', 'platlib', 'scripts', 'data')}
            with self.assertRaisesRegex(fastwheel.Undecided, 'lists bar.py, which the wheel does not contain'):
                fastwheel.plan(order[0], paths)

    def test_data_folder_spelled_otherwise(self):
        # pip: every top-level *.data folder holds the data schemes, spelled
        # as it may be against the .dist-info
        label, prefix = packagings()[0]
        bind(prefix)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'foo_qux-1.0-py3-none-any.whl')
            info = 'Foo.Qux-1.0.dist-info'
            with zipfile.ZipFile(path, 'w') as z:
                z.writestr('foo_qux/__init__.py', '')
                z.writestr('foo_qux-1.0.data/data/share/fooqux.txt', 'x\n')
                z.writestr(info + '/METADATA', 'Metadata-Version: 2.1\nName: Foo.Qux\nVersion: 1.0\n')
                z.writestr(info + '/WHEEL', 'Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n')
                z.writestr(info + '/RECORD', '')
            order, _ = fastwheel.resolve(['Foo_Qux'], fastwheel.wheelhouse(tmp), {})
            root = os.path.join(tmp, 'root')
            paths = {k: os.path.join(root, k) for k in ('purelib', 'platlib', 'scripts', 'data')}
            fastwheel.plan(order[0], paths)
            dests = {f[3] for f in order[0].files}
            self.assertIn(os.path.join(paths['data'], 'share', 'fooqux.txt'), dests)
            self.assertFalse(any('.data' in d for d in dests), dests)

    def test_exec_bit_needs_a_regular_file(self):
        # pip's zip_item_is_executable: 0o755 with no file type is 0644
        for attr, want in ((0o100755, True), (0o755, False), (0o100644, False), (0, False)):
            zi = zipfile.ZipInfo('x')
            zi.external_attr = attr << 16
            self.assertEqual(fastwheel.executable(zi), want, oct(attr))


class LeftToPip(unittest.TestCase):
    """.data/scripts and console/gui entry points are pip's to install:
    their #! lines and launchers are pip's own, byte for byte."""

    def plan_of(self, extra):
        label, prefix = packagings()[0]
        bind(prefix)
        with tempfile.TemporaryDirectory() as tmp:
            wh, root = os.path.join(tmp, 'wh'), os.path.join(tmp, 'root')
            os.makedirs(wh)
            path = build_wheel(wh)
            with zipfile.ZipFile(path, 'a') as z:
                for name, body in extra.items():
                    z.writestr(name, body)
            paths = {k: os.path.join(root, k) for k in
                     ('purelib', 'platlib', 'scripts', 'data')}
            order, notes = fastwheel.resolve(['demo-pkg'], fastwheel.wheelhouse(wh), {})
            fastwheel.plan(order[0], paths)

    def test_scripts_are_undecided(self):
        with self.assertRaises(fastwheel.Undecided):
            self.plan_of({'demo_pkg-1.0.data/scripts/demo-legacy': '#!python\nprint(1)\n'})

    def test_entry_points_are_undecided(self):
        for sec in ('console_scripts', 'gui_scripts'):
            with self.assertRaises(fastwheel.Undecided):
                self.plan_of({'demo_pkg-1.0.dist-info/entry_points.txt':
                              '[%s]\ndemo-cli = demo_pkg:main\n' % sec})

    def test_other_entry_points_stay(self):
        self.plan_of({'demo_pkg-1.0.dist-info/entry_points.txt':
                      '[pyrt.plugins]\ndemo = demo_pkg:main\n'})


class Sizes(unittest.TestCase):
    """A wheel is refused from its central directory, before a member is
    read: a member over FLOOR unpacking to more than RATIO times its
    compressed size, or more than WHEEL_BYTES_MAX in all."""

    def zipped(self, tmp, members):
        path = os.path.join(tmp, 'sizes-1.0-py3-none-any.whl')
        with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
            for name, data in members:
                z.writestr(name, data)
        return zipfile.ZipFile(path)

    def test_ratio_and_total(self):
        with tempfile.TemporaryDirectory() as tmp:
            bomb = self.zipped(tmp, [('a.py', ''), ('zeros.bin', bytes(4 << 20))])
            with self.assertRaises(fastwheel.Refused) as cm:
                fastwheel.check_sizes('x.whl', bomb)
            self.assertIn("member 'zeros.bin' unpacks to 4194304 bytes", str(cm.exception))
            self.assertEqual(cm.exception.wheel, 'x.whl')
            # under the floor, any ratio: a small repetitive file is no bomb
            fastwheel.check_sizes('x.whl', self.zipped(tmp, [('s.txt', b' ' * (1 << 20))]))
            # over the floor at a real file's ratio
            fastwheel.check_sizes('x.whl', self.zipped(tmp, [('r.bin', os.urandom(3 << 20))]))
            saved = fastwheel.WHEEL_BYTES_MAX
            try:
                fastwheel.WHEEL_BYTES_MAX = 5 << 20
                with self.assertRaisesRegex(fastwheel.Refused, 'more than the 5242880-byte cap'):
                    fastwheel.check_sizes('x.whl', self.zipped(
                        tmp, [('r1.bin', os.urandom(3 << 20)), ('r2.bin', os.urandom(3 << 20))]))
            finally:
                fastwheel.WHEEL_BYTES_MAX = saved

    def test_total_cap_is_the_archive_cap(self):
        with open(os.path.join(HERE, '..', '..', 'core', 'dist', 'extract.h')) as f:
            text = f.read()
        m = re.search(r'#define PYRT_EXTRACT_DEFAULT_BYTES \((\d+)ull \* (\d+) \* (\d+)\)', text)
        self.assertIsNotNone(m)
        self.assertEqual(fastwheel.WHEEL_BYTES_MAX,
                         int(m.group(1)) * int(m.group(2)) * int(m.group(3)))


def tree(root):
    """{relative path: bytes} of every file under root."""
    out = {}
    for d, _, ns in os.walk(root):
        for n in ns:
            full = os.path.join(d, n)
            with open(full, 'rb') as f:
                out[os.path.relpath(full, root)] = f.read()
    return out


class Setup(unittest.TestCase):
    """A wheelhouse and a target tree in a temporary folder."""

    def setUp(self):
        label, prefix = packagings()[0]
        bind(prefix)
        self.tmp = tempfile.TemporaryDirectory()
        self.wh = os.path.join(self.tmp.name, 'wh')
        self.root = os.path.join(self.tmp.name, 'root')
        os.makedirs(self.wh)
        self.paths = {k: os.path.join(self.root, k) for k in
                      ('purelib', 'platlib', 'scripts', 'data')}
        self.paths['platlib'] = self.paths['purelib']
        os.makedirs(self.paths['purelib'])
        self.site = self.paths['purelib']

    def tearDown(self):
        self.tmp.cleanup()

    def wheel(self, extra=None, wheel_version='1.0', drop=()):
        path = build_wheel(self.wh)
        if extra or wheel_version != '1.0' or drop:
            with zipfile.ZipFile(path) as z:
                members = [(n, z.read(n)) for n in z.namelist()]
            with zipfile.ZipFile(path, 'w') as z:
                for n, body in members:
                    if n in drop:
                        continue
                    if n.endswith('/WHEEL'):
                        body = body.replace(b'Wheel-Version: 1.0',
                                            b'Wheel-Version: ' + wheel_version.encode())
                    z.writestr(n, body)
                for n, body in (extra or {}).items():
                    z.writestr(n, body)
        return path

    def resolve(self, inst=None, other=None):
        return fastwheel.resolve(['demo-pkg'], fastwheel.wheelhouse(self.wh),
                                 inst or {}, other)

    def install(self):
        order, notes = self.resolve(fastwheel.installed([self.site]))
        for w in order:
            fastwheel.plan(w, self.paths)
        with contextlib.redirect_stdout(io.StringIO()):
            fastwheel.run(order, self.paths, [None])
        return order, notes


class PlainCase(Setup):
    """Only the plain case is the fast path's: one .dist-info named for the
    wheel, no other .dist-info or .egg-info anywhere in it, Wheel-Version
    1.x; anything else is pip's (which refuses some of it)."""

    def test_plain_wheel_is_decided(self):
        self.wheel()
        order, notes = self.resolve()
        self.assertEqual([w.info for w in order], ['demo_pkg-1.0.dist-info'])

    def test_other_dist_info_is_undecided(self):
        for extra in ({'python_docx-0.8.11.dist-info/METADATA':
                       'Metadata-Version: 2.1\nName: python-docx\nVersion: 0.8.11\n'},
                      {'demo_pkg-1.0.data/purelib/python_docx-0.8.11.dist-info/RECORD':
                       'docx/x.py,,\n'},
                      {'demo_pkg-1.0.data/platlib/evil.egg-info/PKG-INFO': 'Name: evil\n'},
                      {'demo_pkg/nested/other-2.0.dist-info/METADATA': 'Name: other\n'},
                      {'evil.egg-info/PKG-INFO': 'Name: evil\n'}):
            with self.subTest(list(extra)[0]):
                self.wheel(extra)
                with self.assertRaises(fastwheel.Undecided):
                    self.resolve()

    def test_misnamed_dist_info_is_undecided(self):
        path = self.wheel()
        with zipfile.ZipFile(path) as z:
            members = [(n, z.read(n)) for n in z.namelist()]
        with zipfile.ZipFile(path, 'w') as z:
            for n, body in members:
                z.writestr(n.replace('demo_pkg-1.0.dist-info', 'demo_pkg-1.1.dist-info'), body)
        with self.assertRaisesRegex(fastwheel.Undecided, 'not named for demo-pkg 1.0'):
            self.resolve()

    def test_wheel_version(self):
        for v, warn in (('1.0', None), ('1', None), ('1.9', '1.9'), ('1.0.1', '1.0.1')):
            with self.subTest(v):
                self.wheel(wheel_version=v)
                order, notes = self.resolve()
                warnings_ = [n for n in notes if n.startswith('WARNING')]
                if warn:
                    self.assertEqual(warnings_, ['WARNING: Installing from a newer '
                                                 'Wheel-Version (%s)' % warn])
                else:
                    self.assertEqual(warnings_, [])
        for v in ('2.0', '0.9', 'x'):
            with self.subTest(v):
                self.wheel(wheel_version=v)
                with self.assertRaisesRegex(fastwheel.Undecided, 'Wheel-Version'):
                    self.resolve()

    def test_installed_elsewhere_is_undecided(self):
        self.wheel()
        other = os.path.join(self.tmp.name, 'other-site')
        info = os.path.join(other, 'demo_pkg-0.9.dist-info')
        os.makedirs(info)
        with open(os.path.join(info, 'METADATA'), 'w') as f:
            f.write('Metadata-Version: 2.1\nName: demo-pkg\nVersion: 0.9\n')
        sys.path.append(other)
        try:
            found = fastwheel.elsewhere([self.site], [])
        finally:
            sys.path.remove(other)
        self.assertEqual(found.get('demo-pkg'), other)
        with self.assertRaisesRegex(fastwheel.Undecided, 'demo-pkg is installed in'):
            self.resolve(other=found)

    def test_pth_folders_are_seen(self):
        other = os.path.join(self.tmp.name, 'pth-site')
        os.makedirs(os.path.join(other, 'demo_pkg-0.9.dist-info'))
        with open(os.path.join(self.site, 'x.pth'), 'w') as f:
            f.write('# a comment\nimport os\n%s\n' % other)
        found = fastwheel.elsewhere([self.site], [self.site])
        self.assertEqual(found.get('demo-pkg'), other)


class Atomic(Setup):
    """Each distribution is staged, its RECORD written there, then moved in
    with its .dist-info last: a stop at any point leaves it installed whole
    or without a .dist-info, and repair() finishes or removes what is left."""

    def crash_at(self, point):
        saved = fastwheel.hook

        def hook(kind):
            saved(kind)
            if '%s-%d' % (kind, fastwheel.PASSED.get(kind, 0)) == point:
                raise KeyboardInterrupt(point)
        fastwheel.hook = hook
        os.environ['PYRT_TEST_HOOK_TRACE'] = os.path.join(self.tmp.name, 'trace')
        fastwheel.PASSED.clear()
        try:
            with self.assertRaises(KeyboardInterrupt):
                self.install()
        finally:
            fastwheel.hook = saved
            del os.environ['PYRT_TEST_HOOK_TRACE']

    def points(self):
        with tempfile.TemporaryDirectory() as scratch:
            os.environ['PYRT_TEST_HOOK_TRACE'] = os.path.join(scratch, 'trace')
            fastwheel.PASSED.clear()
            try:
                root = self.root
                self.root = os.path.join(scratch, 'r')
                paths = self.paths
                self.paths = {k: v.replace(root, self.root) for k, v in paths.items()}
                self.site = self.paths['purelib']
                os.makedirs(self.site)
                self.install()
                with open(os.environ['PYRT_TEST_HOOK_TRACE']) as f:
                    return f.read().split(), tree(self.root)
            finally:
                self.root, self.paths, self.site = root, paths, paths['purelib']
                del os.environ['PYRT_TEST_HOOK_TRACE']

    def complete(self):
        inst = fastwheel.installed([self.site])
        return 'demo-pkg' in inst and inst['demo-pkg'].complete()

    def test_every_point(self):
        self.wheel()
        points, want = self.points()
        self.assertIn('fw-record-1', points)
        self.assertIn('fw-dist-info-1', points)
        self.assertGreater(len([p for p in points if p.startswith('fw-move-')]), 5)
        for point in points:
            with self.subTest(point):
                shutil.rmtree(self.root)
                os.makedirs(self.site)
                self.crash_at(point)
                info = os.path.join(self.site, 'demo_pkg-1.0.dist-info')
                # never a .dist-info without everything it lists
                self.assertFalse(os.path.exists(info), point)
                fastwheel.repair(self.paths)
                staged = os.path.join(self.site, fastwheel.STAGING)
                self.assertFalse(os.path.exists(staged), point)
                if self.complete():
                    done = tree(self.root)
                else:
                    # removed whole: moves start after RECORD only
                    self.assertFalse(point.startswith(('fw-move', 'fw-dist-info')), point)
                    order, notes = self.install()
                    done = tree(self.root)
                self.assertTrue(self.complete(), point)
                self.assertEqual(sorted(done), sorted(want), point)
        print('\natomic: %d crash points, each repaired' % len(points))

    def test_broken_record_is_installed_again(self):
        self.wheel()
        self.install()
        rec = os.path.join(self.site, 'demo_pkg-1.0.dist-info', 'RECORD')
        want = tree(self.root)
        for damage in ('record', 'file'):
            with self.subTest(damage):
                if damage == 'record':
                    os.unlink(rec)
                else:
                    os.unlink(os.path.join(self.site, 'demo_pkg', 'sub', 'mod.py'))
                self.assertFalse(self.complete())
                order, notes = self.install()
                self.assertEqual([w.name for w in order], ['demo-pkg'])
                self.assertIn('demo-pkg 1.0 has no complete RECORD: installing it again', notes)
                self.assertTrue(self.complete())
                self.assertEqual(sorted(tree(self.root)), sorted(want))
        order, notes = self.install()
        self.assertEqual(order, [])


if __name__ == '__main__':
    unittest.main()
