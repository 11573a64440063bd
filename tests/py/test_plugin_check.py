"""test_plugin_check: unit tests of the plugin requirement checker (py/plugin_check.py).

ctest: test_py_unit (python3 -m unittest on tests/py/test_*.py).

The checker runs as core/pkgs/plugins.c runs it (python3 -I -S -c PROGRAM
SPEC...), over a site directory of hand-made distributions put first on
its path, and bound to Debian's python3-packaging (23: it raises on a
version that is not PEP 440, as the packaging of pip 22.3 and later does)
under the name pip's vendored copy has.  One distribution the checker
cannot judge must be the answer of the requirements that name it only.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, '..', '..', 'py', 'plugin_check.py')
TAG = 'PYRT-PLUGINS '

# Puts the test's site directory first and packaging where pip's vendored
# copy is looked for, then runs the checker as its own program.
WRAPPER = r'''
import sys, site, types
sys.path.insert(0, sys.argv.pop(1))
sys.path.extend(site.getsitepackages())
import packaging.requirements
for n in ('pip', 'pip._vendor', 'pip._vendor.packaging'):
    sys.modules[n] = types.ModuleType(n)
sys.modules['pip._vendor.packaging.requirements'] = packaging.requirements
with open(sys.argv.pop(1)) as f:
    code = compile(f.read(), 'plugin_check.py', 'exec')
exec(code, {'__name__': '__main__'})
'''


def dist(site_dir, folder, metadata):
    path = os.path.join(site_dir, folder)
    os.mkdir(path)
    with open(os.path.join(path, 'METADATA'), 'wb') as f:
        f.write(metadata)
    # installed means a RECORD whose files are there
    with open(os.path.join(path, 'RECORD'), 'w') as f:
        f.write('%s/METADATA,,\n%s/RECORD,,\n' % (folder, folder))


class OneBadDistribution(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.site = self.tmp.name
        dist(self.site, 'good_pkg-1.0.dist-info',
             b'Metadata-Version: 2.1\nName: good-pkg\nVersion: 1.0\n')
        dist(self.site, 'odd_pkg-1.0.dist-info',
             b'Metadata-Version: 2.1\nName: odd-pkg\n'
             b'Version: not.a.version\n')
        dist(self.site, 'latin_pkg-1.0.dist-info',
             b'Metadata-Version: 2.1\nName: latin-pkg\nVersion: 1.0\n'
             b'Summary: caf\xe9\n')

    def tearDown(self):
        self.tmp.cleanup()

    def check(self, *specs):
        out = subprocess.run(
            [sys.executable, '-I', '-S', '-c', WRAPPER, self.site,
             CHECKER] + list(specs),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True,
            timeout=120).stdout.decode()
        line = [x for x in out.splitlines() if x.startswith(TAG)]
        self.assertEqual(len(line), 1, out)
        doc = json.loads(line[0][len(TAG):])
        self.assertIn('results', doc, 'one bad distribution fails the '
                      'whole check: %s' % doc)
        return doc['results']

    def test_only_the_requirements_naming_it_are_spoilt(self):
        r = self.check('good-pkg>=1', 'odd-pkg>=1', 'odd-pkg', 'latin-pkg',
                       'latin-pkg>=1', 'absent-pkg>=1')
        self.assertTrue(r['good-pkg>=1']['ok'])
        self.assertNotIn('broken', r['good-pkg>=1'])
        self.assertFalse(r['absent-pkg>=1']['ok'])
        self.assertIsNone(r['absent-pkg>=1']['installed'])
        self.assertNotIn('broken', r['absent-pkg>=1'])
        # a bare name asks for no version: any version will do
        self.assertTrue(r['odd-pkg']['ok'])
        self.assertEqual(r['odd-pkg']['installed'], 'not.a.version')

        odd = r['odd-pkg>=1']
        self.assertFalse(odd['ok'])
        self.assertEqual(odd['installed'], 'not.a.version')
        self.assertIn('odd-pkg not.a.version', odd['broken'])
        self.assertIn('odd_pkg-1.0.dist-info', odd['broken'])
        self.assertIn('PEP 440', odd['broken'])
        for spec in ('latin-pkg', 'latin-pkg>=1'):
            bad = r[spec]
            self.assertFalse(bad['ok'], spec)
            self.assertIsNone(bad['installed'], spec)
            self.assertIn('latin-pkg', bad['broken'])
            self.assertIn('latin_pkg-1.0.dist-info', bad['broken'])
            self.assertIn('utf-8', bad['broken'])


if __name__ == '__main__':
    unittest.main()
