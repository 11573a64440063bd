# The wheels of a PEP 751 lock (pylock.toml), read by the runtime's own
# Python (tomllib, 3.11+) for `--pins pylock.toml` (core/pkgs/pylock_read.h):
# pyrt never parses TOML in C.  The file is open as descriptor 4 (the one
# pyrt opened through its trust gate); one JSON document is printed:
#   {"wheels": [[FILE, SHA256, SIZE], ...], "skipped": N}
# with every wheel of every package whose marker holds here, or
#   {"error": "..."}
# naming the first rule of PEP 751 (or of pyrt: wheels only, each with a
# sha256 and a size, which pyrt's lock records) the file breaks.  Markers
# and requires-python are evaluated with pip's vendored packaging, the
# installer's own reading of them.
import json, os, re, site, sys

NORMALIZED = re.compile(r'^[a-z0-9]+(?:-[a-z0-9]+)*$')
SHA256 = re.compile(r'^[0-9a-f]{64}$')


class Refuse(Exception):
    pass


def canon(name):
    return re.sub(r'[-_.]+', '-', name).lower()


def out(obj):
    print(json.dumps(obj))
    return 0


def wheel_file(w):
    if isinstance(w.get('name'), str) and w['name']:
        return w['name']
    for key in ('path', 'url'):
        v = w.get(key)
        if isinstance(v, str) and v:
            from urllib.parse import unquote, urlparse
            tail = re.split(r'[/\\]', v)[-1] if key == 'path' \
                else unquote(urlparse(v).path.rsplit('/', 1)[-1])
            if tail:
                return tail
    raise Refuse('path or url must be provided')


def holds(marker_text, env):
    from pip._vendor.packaging.markers import Marker
    return Marker(marker_text).evaluate(env)


def check_top(doc):
    lv = doc.get('lock-version')
    if not isinstance(lv, str) or not re.match(r'^1(\.\d+)*$', lv):
        raise Refuse('lock-version %r is not 1.x, the versions PEP 751 '
                     'defines' % (lv,))
    if not isinstance(doc.get('created-by'), str):
        raise Refuse('created-by: a required string is missing')
    if not isinstance(doc.get('packages'), list):
        raise Refuse('packages: a required array of tables is missing')
    envs = doc.get('environments')
    if envs is not None and not any(holds(e, None) for e in envs):
        raise Refuse('none of its environments is this one (%s)'
                     % '; '.join(envs))
    rp = doc.get('requires-python')
    if rp is not None:
        from pip._vendor.packaging.specifiers import SpecifierSet
        here = '%d.%d.%d' % sys.version_info[:3]
        if here not in SpecifierSet(rp):
            raise Refuse('requires-python %r: the runtime is Python %s'
                         % (rp, here))


def package_wheels(pkg, i):
    name = pkg.get('name')
    if not isinstance(name, str) or not NORMALIZED.match(name):
        raise Refuse('packages[%d]: name %r is not normalized' % (i, name))
    ver = pkg.get('version')
    wheels = pkg.get('wheels') or []
    if not wheels:
        kinds = [k for k in ('sdist', 'vcs', 'directory', 'archive')
                 if pkg.get(k)] or ['nothing installable']
        raise Refuse('%s %s has no wheel (the lock gives %s): pyrt installs '
                     'wheels only; lock it with wheels (uv: --no-build)'
                     % (name, ver or '', ', '.join(kinds)))
    rows = []
    for k, w in enumerate(wheels):
        where = '%s wheels[%d]' % (name, k)
        try:
            f = wheel_file(w)
        except Refuse as e:
            raise Refuse('%s: %s' % (where, e))
        parts = f[:-4].split('-') if f.endswith('.whl') else []
        if len(parts) not in (5, 6) or canon(parts[0]) != name or \
                (ver is not None and parts[1] != ver):
            raise Refuse('%s: %r is not a wheel of %s %s'
                         % (where, f, name, ver or ''))
        hashes = w.get('hashes')
        sha = hashes.get('sha256') if isinstance(hashes, dict) else None
        if not isinstance(sha, str) or not SHA256.match(sha.lower()):
            raise Refuse('%s: %s has no sha256 hash, which pyrt checks every '
                         'wheel by' % (where, f))
        size = w.get('size')
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            raise Refuse('%s: %s has no size, which pyrt checks every wheel '
                         'by' % (where, f))
        rows.append([f, sha.lower(), size])
    return rows


def main():
    sys.path.extend(p for p in site.getsitepackages() if p not in sys.path)
    try:
        import tomllib
        with os.fdopen(4, 'rb') as fh:
            doc = tomllib.load(fh)
    except Exception as e:
        return out({'error': 'not TOML that Python reads: %s'
                             % str(e).splitlines()[0][:300]})
    try:
        check_top(doc)
        wheels, skipped = [], 0
        for i, pkg in enumerate(doc['packages']):
            if not isinstance(pkg, dict):
                raise Refuse('packages[%d] is not a table' % i)
            if pkg.get('marker') is not None and not holds(pkg['marker'], None):
                skipped += 1
                continue
            wheels.extend(package_wheels(pkg, i))
        return out({'wheels': wheels, 'skipped': skipped})
    except Refuse as e:
        return out({'error': str(e)})
    except ImportError as e:
        return out({'error': "pip's vendored packaging cannot be imported "
                             "(%s)" % str(e).splitlines()[0]})
    except Exception as e:  # an invalid marker or specifier
        return out({'error': '%s: %s' % (type(e).__name__,
                                         str(e).splitlines()[0][:300])})


if __name__ == '__main__':
    sys.exit(main())
