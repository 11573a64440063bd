/*
 * The part of PEP 440 and PEP 508 that C can decide exactly as pip's
 * packaging does (Specifier.contains with prereleases=True), so that the
 * plugin matrix need not start Python for the usual requirement: a bare
 * name, or a name with clauses such as ">=0.8, <2".
 *
 * Decided: clauses ==, !=, <, <=, >, >= and ~= (with two components at
 * least), separated by commas, each with a release of digits and dots
 * (no leading zeros, at most 9 digits a component), against an installed
 * version of the same shape.  Release segments compare with trailing zeros
 * ignored (1.0 == 1); ~=X.Y.Z is >=X.Y.Z with the first components equal.
 * Everything else (wildcards, ===, letters, local versions, extras,
 * markers, URLs, parentheses, other blanks than spaces) is -1: "ask
 * Python".  Pure functions, no state.
 */
#ifndef PYRT_PEP440_H
#define PYRT_PEP440_H

#include <stddef.h>

/** What pyrt_pep440_split found. */
typedef enum pyrt_pep440_form {
	PYRT_PEP440_OTHER = -1, /**< not decidable here: ask Python */
	PYRT_PEP440_BARE = 1,   /**< just a name (the checker's BARE match) */
	PYRT_PEP440_SPEC = 2    /**< a name and a specifier list */
} pyrt_pep440_form;

/**
 * Split requirement req into its name (copied as written, without blanks,
 * into name[len]) and, for PYRT_PEP440_SPEC, *spec pointing at the
 * specifier list inside req.  PYRT_PEP440_OTHER when req has any other
 * shape or the name does not fit.
 */
pyrt_pep440_form pyrt_pep440_split(const char *req, char *name, size_t len,
				   const char **spec);

/**
 * Whether installed version satisfies specifier list spec: 1 yes, 0 no,
 * -1 when either is outside the subset above (ask Python).
 */
int pyrt_pep440_satisfies(const char *spec, const char *version);

/** 1 when version is a release of digits and dots this module compares. */
int pyrt_pep440_is_release(const char *version);

#endif
