#!/usr/bin/env bash
# ctest: e2e_dup_dist
# One project is one distribution (issue 29.8): with two dist-info folders
# of python-docx (a stale one left beside the current) and its files gone,
# status says 1 installed package lacks files, not "2 ... (python-docx,
# python-docx)", and baseline names it once (repaired, or still lacking).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup dup_dist fixtures
box=$work/box
o=(--box-root "$box" --pins "$fx/pins.yaml")
run install --yes "${o[@]}" --from-file "$fx/runtime.tar.gz" --wheelhouse "$fx/wheelhouse"
check "setup: installed with the baseline (rc $rc)" rc_is 0
site=$box/runtime/python/current/local/lib/python3.11/dist-packages
cp -r "$site/python_docx-0.8.11.dist-info" "$site/python_docx-0.8.10.dist-info"
sed -i 's/^Version: .*/Version: 0.8.10/' "$site/python_docx-0.8.10.dist-info/METADATA"
rm -f "$site/docx/__init__.py"
run status "${o[@]}"
check "status: 1 installed package lacks files" has '; 1 installed package lacks files (python-docx: ' out
check "... not 2" eval '! has "2 installed packages" out'
run baseline "${o[@]}" --wheelhouse "$fx/wheelhouse"
# Whether pip's reinstall over two dist-info folders makes it whole
# depends on which one pip uninstalls; either way the name comes once.
check "baseline names python-docx once (rc $rc)" \
  eval '! grep -q "python-docx, python-docx" "$work/out" "$work/err" &&
        { has "reinstalled (its files were missing or it did not import): python-docx$" out ||
          has "1 installed distribution still lacks files (python-docx)" err; }'
e2e_finish
