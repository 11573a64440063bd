"""Unit tests of the wheelhouse installer's pure parts (py/fastwheel.py).

ctest: test_py_unit (python3 -m unittest on tests/py/test_*.py).

The installer is imported as a module (its main() runs only under -c) and
bound to a packaging of the test's choice: pip's vendored one from the pip
wheel Debian ships (the one the managed runtime's pip decides with), and
Debian's python3-packaging.  Its answers are compared with packaging's own.
"""
import base64
import csv
import glob
import hashlib
import importlib
import itertools
import os
import re
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
    info = 'demo_pkg-1.0.dist-info'
    path = os.path.join(wh, 'demo_pkg-1.0-py3-none-any.whl')
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
        z.writestr('demo_pkg/__init__.py', 'VALUE = 1\n')
        z.writestr('demo_pkg/data.bin', bytes(range(256)) * 64)
        z.writestr('demo_pkg/sub/mod.py', 'def f():\n    return 2\n')
        z.writestr('demo_pkg/sub/broken.py', 'def (:\n')
        z.writestr('demo_pkg-1.0.data/data/share/demo.txt', 'shared\n')
        z.writestr(info + '/METADATA',
                   'Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n')
        z.writestr(info + '/WHEEL',
                   'Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n')
        z.writestr(info + '/RECORD', '')
    return path


class Record(unittest.TestCase):
    def test_record_rows_rehash(self):
        label, prefix = packagings()[0]
        bind(prefix)
        with tempfile.TemporaryDirectory() as tmp:
            wh, root = os.path.join(tmp, 'wh'), os.path.join(tmp, 'root')
            os.makedirs(wh)
            build_wheel(wh)
            paths = {k: os.path.join(root, k) for k in
                     ('purelib', 'platlib', 'scripts', 'data')}
            paths['platlib'] = paths['purelib']
            order, notes = fastwheel.resolve(['demo-pkg'], fastwheel.wheelhouse(wh), {})
            self.assertEqual([w.name for w in order], ['demo-pkg'])
            w = order[0]
            fastwheel.plan(w, paths)
            fastwheel.install(w, paths)
            fastwheel.compile_all(w.pys)
            fastwheel.finish(w)
            site = paths['purelib']
            rec = os.path.join(site, 'demo_pkg-1.0.dist-info', 'RECORD')
            with open(rec, newline='') as f:
                rows = list(csv.reader(f))
            listed = set()
            for rel, digest, size in rows:
                full = os.path.normpath(os.path.join(site, rel))
                listed.add(full)
                self.assertTrue(os.path.isfile(full), rel)
                if rel == 'demo_pkg-1.0.dist-info/RECORD' or rel.endswith('.pyc'):
                    # RECORD itself, and the caches, as pip writes them
                    self.assertEqual((digest, size), ('', ''), rel)
                    continue
                with open(full, 'rb') as f:
                    data = f.read()
                want = base64.urlsafe_b64encode(
                    hashlib.sha256(data).digest()).rstrip(b'=').decode()
                self.assertEqual(digest, 'sha256=' + want, rel)
                self.assertEqual(size, str(len(data)), rel)
            on_disk = {os.path.join(d, n) for d, _, ns in os.walk(root) for n in ns}
            self.assertEqual(on_disk, listed)
            self.assertEqual(rows[-1][0], 'demo_pkg-1.0.dist-info/RECORD')
            names = {r[0] for r in rows}
            self.assertIn('../data/share/demo.txt', names)
            # the file that does not compile has no .pyc, as with pip
            self.assertFalse(any('broken.cpython' in n for n in names))
            self.assertTrue(any(n.startswith('demo_pkg/sub/__pycache__/mod.cpython')
                                for n in names))
            print('\nRECORD: %d rows re-hashed' % len(rows))


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
        with open(os.path.join(HERE, '..', '..', 'core', 'extract.h')) as f:
            text = f.read()
        m = re.search(r'#define PYRT_EXTRACT_DEFAULT_BYTES \((\d+)ull \* (\d+) \* (\d+)\)', text)
        self.assertIsNotNone(m)
        self.assertEqual(fastwheel.WHEEL_BYTES_MAX,
                         int(m.group(1)) * int(m.group(2)) * int(m.group(3)))


if __name__ == '__main__':
    unittest.main()
