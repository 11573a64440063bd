# `cmake --install`: the GNU layout a package or `make install` gets.
#   bin/pyrt
#   share/pyrt/themes/*.yaml          (pyrt looks for them next to its bindir)
#   share/man/man1/pyrt.1.gz          (from docs/pyrt.1.scd, when scdoc is found)
#   share/bash-completion/completions/pyrt, share/zsh/vendor-completions/_pyrt,
#   share/fish/vendor_completions.d/pyrt.fish (pyrt completions SHELL)
#   share/doc/pyrt/                   README, SECURITY, RELIABILITY, copyright,
#                                     changelog.gz
#   lib/systemd/user/                 the units of dist/systemd (.service generated
#                                     with the bindir of the prefix)
install(TARGETS pyrt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/themes/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/pyrt/themes
        FILES_MATCHING PATTERN "*.yaml")

# The man page has one source, docs/pyrt.1.scd; tests/e2e_docs_sync.sh keeps
# it, the completions and `pyrt --help` naming the same commands and options.
find_program(SCDOC scdoc)
# Installed compressed (gzip -9n, as Debian policy wants and man reads).
set(PYRT_MAN ${CMAKE_BINARY_DIR}/pyrt.1)
if(SCDOC)
  add_custom_command(
    OUTPUT ${PYRT_MAN} ${PYRT_MAN}.gz
    COMMAND ${SCDOC} < ${CMAKE_SOURCE_DIR}/docs/pyrt.1.scd > ${PYRT_MAN}
    COMMAND gzip -9n < ${PYRT_MAN} > ${PYRT_MAN}.gz
    DEPENDS ${CMAKE_SOURCE_DIR}/docs/pyrt.1.scd
    COMMENT "Building the man page pyrt.1 (scdoc)")
  add_custom_target(pyrt_man ALL DEPENDS ${PYRT_MAN} ${PYRT_MAN}.gz)
  install(FILES ${PYRT_MAN}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "scdoc not found: no man page (scripts/deps.sh installs it)")
endif()

# The completions are what `pyrt completions SHELL` prints (the command
# and option tables' words around dist/completion/pyrt-body.*), written at
# build time by the pyrt just built; a cross build runs the host's pyrt
# (scripts/build-cross.sh builds one beside pyrt_pins_embed): the text is
# the same on every architecture.
set(PYRT_COMPL_OUT ${CMAKE_BINARY_DIR}/completion)
set(PYRT_HOST_PYRT "" CACHE FILEPATH
    "a pyrt built for the build machine, to print the completions (cross builds)")
if(PYRT_HOST_PYRT)
  set(PYRT_COMPL_RUN ${PYRT_HOST_PYRT})
elseif(CMAKE_CROSSCOMPILING)
  set(PYRT_COMPL_RUN ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:pyrt>)
else()
  set(PYRT_COMPL_RUN $<TARGET_FILE:pyrt>)
endif()
add_custom_command(
  OUTPUT ${PYRT_COMPL_OUT}/pyrt ${PYRT_COMPL_OUT}/_pyrt ${PYRT_COMPL_OUT}/pyrt.fish
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PYRT_COMPL_OUT}
  COMMAND ${PYRT_COMPL_RUN} completions bash > ${PYRT_COMPL_OUT}/pyrt
  COMMAND ${PYRT_COMPL_RUN} completions zsh > ${PYRT_COMPL_OUT}/_pyrt
  COMMAND ${PYRT_COMPL_RUN} completions fish > ${PYRT_COMPL_OUT}/pyrt.fish
  DEPENDS pyrt
  COMMENT "Writing the bash, zsh and fish completions (pyrt completions)")
add_custom_target(pyrt_completions ALL DEPENDS ${PYRT_COMPL_OUT}/pyrt)
install(FILES ${PYRT_COMPL_OUT}/pyrt
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${PYRT_COMPL_OUT}/_pyrt
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${PYRT_COMPL_OUT}/pyrt.fish
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)

# Debian wants changelog.gz compressed reproducibly (gzip -9n: no name,
# no timestamp), so the same source gives the same package bytes.
set(PYRT_CHANGELOG_GZ ${CMAKE_BINARY_DIR}/changelog.gz)
add_custom_command(
  OUTPUT ${PYRT_CHANGELOG_GZ}
  COMMAND gzip -9n < ${CMAKE_SOURCE_DIR}/dist/debian/changelog > ${PYRT_CHANGELOG_GZ}
  DEPENDS ${CMAKE_SOURCE_DIR}/dist/debian/changelog
  COMMENT "Compressing the changelog (gzip -9n)")
add_custom_target(pyrt_changelog ALL DEPENDS ${PYRT_CHANGELOG_GZ})
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/docs/SECURITY.md
              ${CMAKE_SOURCE_DIR}/docs/RELIABILITY.md
              ${CMAKE_SOURCE_DIR}/docs/api.yaml
              ${CMAKE_SOURCE_DIR}/dist/debian/copyright ${PYRT_CHANGELOG_GZ}
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# `pyrt serve`'s user units.  Not LIBDIR: on Debian that is multiarch, and
# units live in <prefix>/lib/systemd/user.  A .service names the binary by
# its installed path, so it is generated from the prefix (a package built
# with prefix /usr gets /usr/bin/pyrt, `make install` /usr/local/bin/pyrt).
set(PYRT_UNIT_BINDIR ${CMAKE_INSTALL_FULL_BINDIR})
file(GLOB PYRT_UNITS_IN CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/dist/systemd/*.service.in)
foreach(unit_in ${PYRT_UNITS_IN})
  get_filename_component(unit ${unit_in} NAME_WLE)
  configure_file(${unit_in} ${CMAKE_BINARY_DIR}/systemd/${unit} @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/systemd/${unit} DESTINATION lib/systemd/user)
endforeach()
install(DIRECTORY ${CMAKE_SOURCE_DIR}/dist/systemd/
        DESTINATION lib/systemd/user
        FILES_MATCHING PATTERN "*.socket" PATTERN "*.timer")
