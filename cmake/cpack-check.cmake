# Run by cpack before it packs (CPACK_PROJECT_CONFIG_FILE).
if(CPACK_PYRT_TEST_HOOKS)
  message(FATAL_ERROR "this build has the test crash points in "
          "(PYRT_TEST_HOOKS=ON): package a release build, scripts/deb.sh")
endif()
