#!/usr/bin/env python3
"""Write one hostile wheel for e2e_wheel_carries: hostile_wheel.py DIR KIND.

KIND is one of
  data-dist-info  evilfd-1.0 carrying evilfd-1.0.data/platlib/
                  python_docx-0.8.11.dist-info/ with a RECORD row that leaves
                  the scheme folders (issue 26, door 1)
  egg-info        evilegg-1.0 carrying a top-level python_pptx.egg-info/
  pycache         evilpyc-1.0 carrying docx/__pycache__/__init__.cpython-311.pyc
  clean           okwheel-1.0, only itself (the control), with a member
                  whose name is not ASCII
Each is otherwise a real wheel (METADATA, WHEEL, RECORD with hashes).
"""
import base64
import hashlib
import os
import sys
import zipfile


def digest(data):
    raw = hashlib.sha256(data).digest()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def main():
    outdir, kind = sys.argv[1], sys.argv[2]
    name = {"data-dist-info": "evilfd", "egg-info": "evilegg",
            "pycache": "evilpyc", "clean": "okwheel"}[kind]
    info = f"{name}-1.0.dist-info"
    files = {
        f"{name}/__init__.py": b"VERSION = '1.0'\n",
        f"{info}/METADATA":
            f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: pyrt-tests\n"
                         b"Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    if kind == "data-dist-info":
        foreign = f"{name}-1.0.data/platlib/python_docx-0.8.11.dist-info"
        files[f"{foreign}/METADATA"] = (b"Metadata-Version: 2.1\n"
                                        b"Name: python-docx\n"
                                        b"Version: 0.8.11\n")
        files[f"{foreign}/RECORD"] = (b"../../../../../../victim-file,,\n"
                                      b"docx/missing.py,,\n")
    elif kind == "egg-info":
        files["python_pptx.egg-info/PKG-INFO"] = (b"Metadata-Version: 1.0\n"
                                                  b"Name: python-pptx\n"
                                                  b"Version: 0.6.21\n")
    elif kind == "pycache":
        files["docx/__pycache__/__init__.cpython-311.pyc"] = b"\0" * 16
    elif kind == "clean":
        # A UTF-8 member name (PEP 427): read as such in pyrt's "C" locale.
        files[f"{name}/donn\u00e9es.txt"] = b"data\n"
    record = "".join(f"{p},sha256={digest(d)},{len(d)}\n"
                     for p, d in files.items())
    record += f"{info}/RECORD,,\n"
    files[f"{info}/RECORD"] = record.encode()
    path = os.path.join(outdir, f"{name}-1.0-py3-none-any.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for p, d in files.items():
            z.writestr(p, d)
    print(path)


if __name__ == "__main__":
    main()
