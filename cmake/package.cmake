# `cpack -G DEB` (scripts/deb.sh runs it from a release build): a
# pyrt_<version>_<arch>.deb whose Depends dpkg-shlibdeps computes from the
# binary's shared libraries.  Depends the binary does not link against (a
# library it dlopens, a program it runs) go in PYRT_DEB_EXTRA_DEPENDS, the one
# place for them.
set(PYRT_DEB_EXTRA_DEPENDS "" CACHE STRING
    "Depends added to the computed ones (comma-separated, Debian syntax)")
set(PYRT_MAINTAINER "pyrt developers <pyrt@example.org>" CACHE STRING
    "The Maintainer of the Debian package")

set(CPACK_PACKAGE_NAME pyrt)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${PYRT_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "provision and check a managed CPython runtime")
set(CPACK_PACKAGE_DESCRIPTION
    "pyrt installs a pinned, checksum-verified CPython runtime into a box
directory, activates it atomically and answers honestly whether it is
ready: status, doctor, per-plugin readiness, a .docx smoke test, verify,
rollback and uninstall, with a terminal UI and a headless JSON mode.")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # pyrt_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# A cross build names its Debian architecture (scripts/deb.sh --arch);
# otherwise cpack asks dpkg for this machine's.
set(PYRT_DEB_ARCH "" CACHE STRING "Debian architecture of a cross-built package")
if(PYRT_DEB_ARCH)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${PYRT_DEB_ARCH})
endif()
# The libraries pyrt dlopen()s on first use (core/util/lazylib.h,
# serve/lazy_mhd.c): shlibdeps cannot see them, their sonames pin the ABI
# (libcrypto.so.3 is in libssl3; SHA256_* are in every 3.x; the TUI's
# libncursesw.so.6 in libncursesw6, tui/lazy_curses.c; libyaml-0.so.2 and
# libz.so.1, core/util/lazy_yaml.c and core/util/lazy_zlib.c, with zlib's own shlibs
# minimum).
set(PYRT_DEB_DLOPEN_DEPENDS
    "libcurl4, libarchive13, libmicrohttpd12, libssl3 (>= 3.0.0), libncursesw6 (>= 6), libyaml-0-2, zlib1g (>= 1:1.1.4)")
if(PYRT_DEB_EXTRA_DEPENDS)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "${PYRT_DEB_DLOPEN_DEPENDS}, ${PYRT_DEB_EXTRA_DEPENDS}")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${PYRT_DEB_DLOPEN_DEPENDS}")
endif()
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ca-certificates")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)
set(CPACK_GENERATOR DEB)
# The crash points of PYRT_TEST_HOOKS never ship: cpack refuses such a build.
set(CPACK_PYRT_TEST_HOOKS ${PYRT_TEST_HOOKS})
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_SOURCE_DIR}/cmake/cpack-check.cmake)
include(CPack)
