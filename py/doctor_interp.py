# The interpreter's own report (core/runtime/interp.c, pyrt_interp_report_run: doctor's
# interpreter check and the baseline's import check), run as
#   python3 -I -S -B -c <this file> BASELINE-REQUIREMENT...
# Version and sys.prefix, then whether the runtime can do its job, not only
# start: ssl (pip needs it for any index) and, for each baseline requirement
# in argv[1:] that is installed, the top-level modules of its distribution.
# Its last line is "PYRT-IMPORTS " (interp.c's IMPORTS_TAG) followed by "ok"
# or "; "-joined failures, each "module (Error: text)".  site-packages go on
# sys.path by hand: -S keeps site's start-up, and the .pth files it would
# run, out (importing the baseline does run its code, as pyrt smoke does).
import os, platform, sys
print(platform.python_version())
print(os.path.realpath(sys.prefix))
bad = []
def attempt(mod, what=''):
    try:
        __import__(mod)
    except BaseException as e:
        text = (str(e).splitlines() or [''])[0][:160]
        bad.append('%s%s (%s: %s)' % (mod, what, type(e).__name__, text))
attempt('ssl')
if sys.argv[1:]:
    import re, site
    sys.path.extend(p for p in site.getsitepackages() if p not in sys.path)
    norm = lambda n: re.sub(r'[-_.]+', '-', n).lower()
    tops = {}
    try:
        from importlib import metadata
        for mod, dists in metadata.packages_distributions().items():
            for d in dists:
                tops.setdefault(norm(d), set()).add(mod)
    except BaseException as e:
        bad.append('importlib.metadata (%s: %s)' % (type(e).__name__, e))
    def unheld(name):
        # modules whose every file is one its wheel never held (a RECORD
        # row of the wheel's own: core/runtime/dists.h PYRT_DISTS_WHEEL_FAULTS)
        try:
            d = metadata.distribution(name)
            faults = set((d.read_text('PYRT-WHEEL-FAULTS') or '').split('\n')) - {''}
            files = [str(f) for f in (d.files or [])] if faults else []
        except BaseException:
            return set()
        by = {}
        for p in files:
            top = p.split('/')[0]
            by.setdefault(top[:-3] if '/' not in p and top.endswith('.py') else top, []).append(p)
        return {m for m, ps in by.items() if all(p in faults for p in ps)}
    for spec in sys.argv[1:]:
        m = re.match(r'\s*([A-Za-z0-9][A-Za-z0-9._-]*)', spec)
        name = norm(m.group(1)) if m else ''
        skip = unheld(name) if name in tops else set()
        for mod in sorted(tops.get(name, ())):
            if mod in skip:
                continue
            if mod.isidentifier() and not mod.startswith('_') and mod not in ('test', 'tests'):
                attempt(mod, ' of ' + name)
print('\nPYRT-IMPORTS ' + ('; '.join(bad) if bad else 'ok'))
