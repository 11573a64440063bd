# pyrt smoke's script (core/diagnose/smoke.c): python3 -I -c <this file> PARAGRAPH OUT
# writes a .docx with python-docx; exit 3: no python-docx, 4: it is broken.
import sys
try:
    import docx
except ModuleNotFoundError as e:
    if e.name != 'docx':
        print('python-docx cannot be imported: %s' % e)
        sys.exit(4)
    print('missing python-docx')
    sys.exit(3)
except ImportError as e:
    print('python-docx cannot be imported: %s' % e)
    sys.exit(4)
d = docx.Document()
d.add_paragraph(sys.argv[1])
d.save(sys.argv[2])
print('python-docx %s wrote %s' % (getattr(docx, '__version__', '?'), sys.argv[2]))
