#!/usr/bin/env bash
# ctest: e2e_repair_record
# A repair never reinstalls a distribution whose RECORD names a file
# outside the runtime (issue 26, door 1): pip's uninstall deletes whatever
# RECORD lists, so root's ordinary `pyrt baseline` deleted root's 0600 file
# outside the box when a forged python-docx RECORD (planted by a wheel
# through .data/platlib, or by hand) listed it and a listed file was
# missing.  Now baseline says so and leaves it; the file stays.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup repair_record fixtures

box=$work/box
opts=(--box-root "$box" --pins "$fx/pins.yaml")
printf 'python-docx\n' >"$work/req.txt"
run install "${opts[@]}" --from-file "$fx/runtime.tar.gz" --wheelhouse "$fx/wheelhouse" --requirements "$work/req.txt" --yes
check "setup: a runtime with python-docx (exit 0)" rc_is 0
site=$(readlink -f "$box/runtime/python/current")/local/lib/python3.11/dist-packages
info=$(ls -d "$site"/python_docx-*.dist-info)
check "setup: python-docx's dist-info is there" [ -f "$info/RECORD" ]
victim=$work/victim-file
echo "root's own" >"$victim"; chmod 0600 "$victim"
rel=$(python3 -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$victim" "$site")
printf '%s,,\n' "$rel" >>"$info/RECORD"
rm "$site/docx/api.py"
run baseline "${opts[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$work/req.txt" --yes
check "the file outside the runtime that the RECORD names is still there" [ -f "$victim" ]
check "baseline says why it does not reinstall python-docx" \
  has "python-docx .*its RECORD names a file outside the runtime.*not reinstalling it" err
e2e_finish
