# install's check of a staged interpreter (core/runtime/install.c, install_check),
# run as  python3 -I -S -B -c <this file>
# The version on the first line, then the directories the plugin checker
# (py/plugin_check.py) will search for distributions, built the same way:
# the absolute sys.path entries under -I -S after site.getsitepackages() is
# appended.  "P <path>" each, or one "U" when some path could not be read
# back as a line.  Only the stdlib's site is imported, and its start-up does
# not run (-S).
import sys, site
print(sys.version.split()[0])
sys.path.extend(p for p in site.getsitepackages() if p not in sys.path)
ps = [p for p in sys.path if p.startswith('/')]
ok = all(p.isascii() and p.isprintable() for p in ps)
print('\n'.join('P ' + p for p in ps) if ok else 'U')
