# Helpers of the generated kernel project (`kernel-builder create-pyproject`).

# Backend and version of the installed torch; finds Torch through its cmake prefix path.
function(kb_detect_torch)
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c
    "import torch, torch.utils; v = torch.version; print(torch.utils.cmake_prefix_path); print(torch.__version__.split('+')[0]); print('cuda' if v.cuda else 'rocm' if getattr(v, 'hip', None) else 'xpu' if getattr(v, 'xpu', None) else 'metal' if torch.backends.mps.is_available() else 'cpu')"
    OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  string(REPLACE "\n" ";" out "${out}")
  list(GET out 0 prefix)
  list(GET out 1 version)
  list(GET out 2 backend)
  if(DEFINED KB_BACKEND_OVERRIDE)
    set(backend "${KB_BACKEND_OVERRIDE}")
  endif()
  list(APPEND CMAKE_PREFIX_PATH "${prefix}")
  find_package(Torch REQUIRED)
  set(KB_BACKEND "${backend}" PARENT_SCOPE)
  set(KB_TORCH_VERSION "${version}" PARENT_SCOPE)
  set(TORCH_LIBRARIES "${TORCH_LIBRARIES}" PARENT_SCOPE)
  message(STATUS "Building the ${backend} kernel with torch ${version}")
endfunction()

# TVM-FFI projects: the backend (KB_BACKEND_OVERRIDE, else cuda when CMake finds a CUDA compiler,
# else cpu) and tvm_ffi's CMake package (target tvm_ffi::shared), located through
# `python -m tvm_ffi.config --cmakedir` of the configuring interpreter.
macro(kb_detect_tvm_ffi)
  execute_process(COMMAND "${Python3_EXECUTABLE}" -m tvm_ffi.config --cmakedir
    OUTPUT_VARIABLE kb_tvm_ffi_dir OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  set(Python_EXECUTABLE "${Python3_EXECUTABLE}")
  find_package(tvm_ffi CONFIG REQUIRED PATHS "${kb_tvm_ffi_dir}" NO_DEFAULT_PATH)
  if(DEFINED KB_BACKEND_OVERRIDE)
    set(KB_BACKEND "${KB_BACKEND_OVERRIDE}")
  else()
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
      set(KB_BACKEND "cuda")
    else()
      set(KB_BACKEND "cpu")
    endif()
  endif()
  message(STATUS "Building the ${KB_BACKEND} kernel with tvm_ffi from ${kb_tvm_ffi_dir}")
endmacro()

function(kb_no_gnu_unique target)
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag(-fno-gnu-unique KB_HAVE_NO_GNU_UNIQUE)
  if(KB_HAVE_NO_GNU_UNIQUE)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>
      $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fno-gnu-unique>)
  endif()
endfunction()

# Writes the package's _ops.py for this build's ops id.
function(kb_write_ops_py template output)
  set(OPS_ID "${OPS_NAME}")
  configure_file("${template}" "${output}" @ONLY)
endfunction()

# `install` (into <prefix>/<variant>/) and `local_install` (into <project>/build/<variant>/): the
# package files, the module and metadata.json (from metadata-<backend>.json).
function(kb_install_variant target python_name project data_extensions)
  if(NOT DEFINED KB_VARIANT)
    set(KB_VARIANT "${KB_BACKEND}")
  endif()
  if(NOT DEFINED KB_EXT_DIR)
    set(KB_EXT_DIR "torch-ext")
  endif()
  set(package "${project}/${KB_EXT_DIR}/${python_name}")
  set(patterns PATTERN "*.py" PATTERN "*.pyi")
  foreach(ext IN LISTS data_extensions)
    list(APPEND patterns PATTERN "*.${ext}")
  endforeach()
  install(DIRECTORY "${package}/" DESTINATION "${KB_VARIANT}" FILES_MATCHING ${patterns}
    PATTERN "__pycache__" EXCLUDE)
  install(TARGETS ${target} LIBRARY DESTINATION "${KB_VARIANT}")
  install(FILES "${CMAKE_CURRENT_SOURCE_DIR}/metadata-${KB_BACKEND}.json" DESTINATION "${KB_VARIANT}"
    RENAME metadata.json)
  add_custom_target(local_install
    COMMAND "${CMAKE_COMMAND}" --install "${CMAKE_BINARY_DIR}" --prefix "${project}/build"
    DEPENDS ${target})
endfunction()
