"""test_lock_closure: unit tests of the wheel lock's check and closure
(py/lock_closure.py, run by core/pkgs/wheellock.c).

ctest: test_py_unit (python3 -m unittest on tests/py/test_*.py).

The program is loaded as a module (its main() runs only as __main__), with
pip's vendored packaging from Debian's pip wheel, the one the fixture
runtime is given; closure() gets hand-made wheels.
"""
import glob
import os
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, sorted(glob.glob('/usr/share/python-wheels/pip-*.whl'))[-1])
NS = {'__name__': 'lock_closure'}
with open(os.path.join(HERE, '..', '..', 'py', 'lock_closure.py')) as f:
    exec(compile(f.read(), 'lock_closure.py', 'exec'), NS)


def wheel(d, name, version, deps=(), extras=()):
    mod = name.replace('-', '_')
    path = os.path.join(d, '%s-%s-py3-none-any.whl' % (mod, version))
    meta = 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' % (name, version)
    meta += ''.join('Provides-Extra: %s\n' % e for e in extras)
    meta += ''.join('Requires-Dist: %s\n' % r for r in deps)
    with zipfile.ZipFile(path, 'w') as z:
        z.writestr('%s-%s.dist-info/METADATA' % (mod, version), meta)
    return path


class Closure(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.wheels = {}
        for args in (('lib', '1.0'),
                     ('app', '1.0', ['lib>=1', 'ghost; python_version < "3"']),
                     ('fancy', '1.0', ['helper; extra == "more"'], ['more']),
                     ('helper', '1.0'), ('unrelated', '1.0'),
                     ('odd', '1.0', ['lib; no_such_variable == "x"']),
                     ('needy', '1.0', ['absent>=1'])):
            self.wheels[args[0]] = [wheel(d, *args)]
        self.locked = {n: '1.0' for n in self.wheels}

    def tearDown(self):
        self.tmp.cleanup()

    def run_closure(self, reqs):
        try:
            return NS['closure'](self.wheels, self.locked, reqs)
        except NS['Refuse'] as e:
            return {'refuse': e.obj}

    def test_only_the_requested_and_their_dependencies(self):
        r = self.run_closure(['app'])
        self.assertEqual(r['install'], [['app', []], ['lib', []]])
        self.assertTrue(r['closed'])

    def test_a_specifier_the_locked_version_does_not_satisfy(self):
        r = self.run_closure(['lib>=2'])['refuse']
        self.assertEqual((r['req'], r['name'], r['locked'], r['why']),
                         ('lib>=2', 'lib', '1.0', 'version'))

    def test_extras_close_over_their_dependencies(self):
        r = self.run_closure(['fancy[more]'])
        self.assertEqual(r['install'], [['fancy', ['more']], ['helper', []]])
        r = self.run_closure(['fancy'])
        self.assertEqual(r['install'], [['fancy', []]])

    def test_an_extra_the_wheel_lacks_is_a_warning(self):
        r = self.run_closure(['lib[nope]'])
        self.assertEqual(r['install'], [['lib', ['nope']]])
        self.assertIn("does not provide the extra 'nope'", r['warnings'][0])

    def test_a_marker_that_cannot_be_evaluated_is_refused(self):
        r = self.run_closure(['odd'])['refuse']
        self.assertEqual(r['why'], 'marker')
        self.assertIn('no_such_variable', r['req'])
        self.assertIn('odd 1.0', r['detail'])

    def test_a_dependency_the_lock_lacks(self):
        r = self.run_closure(['needy'])['refuse']
        self.assertEqual((r['name'], r['why'], r['detail']), ('absent', 'missing', 'needy 1.0'))

    def test_without_wheels_the_set_is_not_closed(self):
        r = NS['closure']({}, self.locked, ['app'])
        self.assertFalse(r['closed'])
        with self.assertRaises(NS['Refuse']):
            NS['closure']({}, self.locked, ['lib>=2'])

    def test_recorded_requires_close_the_set_without_wheels(self):
        # what `pyrt lock` recorded stands in for the wheels' METADATA
        recorded = {'app': ['lib>=1', 'ghost; python_version < "3"'],
                    'lib': [], 'unrelated': [], 'helper': [],
                    'fancy': ['helper; extra == "more"']}
        r = NS['closure']({}, self.locked, ['app', 'fancy[more]'], recorded)
        self.assertTrue(r['closed'])
        self.assertEqual(r['install'], [['app', []], ['fancy', ['more']],
                                        ['lib', []], ['helper', []]])


if __name__ == '__main__':
    unittest.main()
