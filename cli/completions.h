/*
 * The shell code of the completions, as written in
 * dist/completion/pyrt-body.{bash,zsh,fish} and embedded at build time
 * (cmake/embed.cmake): each NUL-terminated, its _size counting the
 * NUL.  cli/completions.c prints the tables' words around them.
 */
#ifndef PYRT_CLI_COMPLETIONS_H
#define PYRT_CLI_COMPLETIONS_H

#include <stddef.h>

extern const char cli_completion_bash[];
extern const size_t cli_completion_bash_size;
extern const char cli_completion_zsh[];
extern const size_t cli_completion_zsh_size;
extern const char cli_completion_fish[];
extern const size_t cli_completion_fish_size;

#endif
