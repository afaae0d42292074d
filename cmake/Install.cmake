# `cmake --install`: headers (with the generated .inc and the .td files), the
# libraries, the tools (tools/CMakeLists.txt) and the TransformerMLIR CMake
# package, so that a downstream project writes
#
#   find_package(TransformerMLIR REQUIRED CONFIG)
#   target_link_libraries(my-opt PRIVATE TransformerMLIR::MLIRTransformerRegisterAll)
#
# (docs/Install.md; test/Install builds such a project).

include(CMakePackageConfigHelpers)

set(TRANSFORMER_INSTALL_LIBDIR lib${LLVM_LIBDIR_SUFFIX})
set(TRANSFORMER_INSTALL_PACKAGEDIR ${TRANSFORMER_INSTALL_LIBDIR}/cmake/TransformerMLIR)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/Transformer
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT transformer-headers
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/Transformer
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT transformer-headers
  FILES_MATCHING PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

# add_mlir_library installs every library of the project into the export set
# `MLIRTargets` (LLVM's naming; the set holds only this project's libraries).
# A consumer gets their headers, those of LLVM/MLIR they include, and C++17
# from the imported targets alone.
get_property(TRANSFORMER_EXPORTED_LIBS GLOBAL PROPERTY MLIR_EXPORTS)
foreach(lib ${TRANSFORMER_EXPORTED_LIBS})
  set(dirs ${CMAKE_INSTALL_INCLUDEDIR} ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
  list(REMOVE_DUPLICATES dirs)
  foreach(dir ${dirs})
    target_include_directories(${lib} INTERFACE $<INSTALL_INTERFACE:${dir}>)
  endforeach()
  target_compile_features(${lib} INTERFACE cxx_std_17)
endforeach()
install(EXPORT MLIRTargets
  NAMESPACE TransformerMLIR::
  FILE TransformerMLIRTargets.cmake
  DESTINATION ${TRANSFORMER_INSTALL_PACKAGEDIR}
  COMPONENT transformer-cmake)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/TransformerMLIRConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/TransformerMLIRConfig.cmake
  INSTALL_DESTINATION ${TRANSFORMER_INSTALL_PACKAGEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/TransformerMLIRConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/TransformerMLIRConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/TransformerMLIRConfigVersion.cmake
  DESTINATION ${TRANSFORMER_INSTALL_PACKAGEDIR}
  COMPONENT transformer-cmake)
