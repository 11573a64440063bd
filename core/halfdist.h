/*
 * Distributions pip did not finish installing.  pip (and pyrt's wheelhouse
 * installer) writes a distribution's files, then its .dist-info, RECORD
 * last; when it fails part-way the METADATA may already be there, and a
 * rerun says "Requirement already satisfied" for a package that is half on
 * disk.  The baseline looks for them after pip ran, so its marker never
 * says complete over one, and removes the unfinished ones before pip runs,
 * so a rerun installs them again.
 *
 * Half-installed: a .dist-info folder whose RECORD is not a regular file
 * (pip stopped before it), or whose RECORD lists a file that is not there
 * (byte-compiled .pyc files aside: Python makes them again).
 */
#ifndef PYRT_HALFDIST_H
#define PYRT_HALFDIST_H

#include <stddef.h>

typedef struct pyrt_halfdist {
	char name[128];     /**< PEP 503 normalised: "et-xmlfile" */
	char version[64];   /**< from the folder's name */
	char folder[256];   /**< "et_xmlfile-1.0.1.dist-info" */
	char why[512];      /**< what is wrong, naming the file */
	int no_record;      /**< RECORD absent or no file: never finished */
	int has_metadata;   /**< METADATA is there: pip takes it as installed */
} pyrt_halfdist;

/**
 * The half-installed distributions in the directory site (absolute; a
 * missing directory has none), at most max of them into out.  Returns how
 * many were found (may exceed max), or -1 when site cannot be read.
 */
int pyrt_halfdist_scan(const char *site, pyrt_halfdist *out, size_t max);

#endif
