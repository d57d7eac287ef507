# Install tree in the CANN layout: <prefix>/include/{acl,aclnn,aclnnop}, <prefix>/lib64, set_env.sh,
# plus a CMake package (find_package(aclnn_host)) and a pkg-config file.
include(CMakePackageConfigHelpers)

install(DIRECTORY include/ DESTINATION ${ACLNN_HOST_INCLUDEDIR})
install(TARGETS ascendcl nnopbase opapi_nn opapi_math aclnn_host EXPORT aclnn_host_targets
        LIBRARY DESTINATION ${ACLNN_HOST_LIBDIR}
        INCLUDES DESTINATION ${ACLNN_HOST_INCLUDEDIR})
install(FILES ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/libopapi.so ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/libacl_rt.so
        DESTINATION ${ACLNN_HOST_LIBDIR})
install(CODE "
  set(ACLNN_HOST_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_SOURCE_DIR}/cmake/set_env.sh.in\" \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/set_env.sh\" @ONLY)
  message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/set_env.sh\")")

# share/ is searched by find_package on every distribution (Debian skips lib64/).
set(package_dir share/cmake/aclnn_host)
install(EXPORT aclnn_host_targets NAMESPACE aclnn_host:: DESTINATION ${package_dir})
configure_package_config_file(cmake/aclnn_hostConfig.cmake.in ${PROJECT_BINARY_DIR}/aclnn_hostConfig.cmake
                              INSTALL_DESTINATION ${package_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/aclnn_hostConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/aclnn_hostConfig.cmake ${PROJECT_BINARY_DIR}/aclnn_hostConfigVersion.cmake
        DESTINATION ${package_dir})

configure_file(cmake/aclnn_host.pc.in ${PROJECT_BINARY_DIR}/aclnn_host.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/aclnn_host.pc DESTINATION ${ACLNN_HOST_LIBDIR}/pkgconfig)
