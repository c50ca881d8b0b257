# ae_layer(NAME FOLDERS dir... LINKS target... FORBID folder...)
# One static library per layer of the house. It links only what it may use, and a build-time
# check refuses any #include of a folder above it, so a wrong include fails the build.
function(ae_layer name)
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "FOLDERS;LINKS;FORBID")
    set(sources "")
    foreach(folder IN LISTS arg_FOLDERS)
        file(GLOB found CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${folder}/*.cpp ${CMAKE_SOURCE_DIR}/${folder}/*.h)
        list(APPEND sources ${found})
    endforeach()
    add_library(${name} STATIC ${sources})
    target_include_directories(${name} PUBLIC ${CMAKE_SOURCE_DIR})
    target_link_libraries(${name} PUBLIC ${arg_LINKS})
    if(arg_FORBID)
        set(stamp ${CMAKE_CURRENT_BINARY_DIR}/${name}.layer-checked)
        add_custom_command(OUTPUT ${stamp}
            COMMAND ${CMAKE_COMMAND} -DLAYER=${name} "-DFILES=${sources}" "-DFORBIDDEN=${arg_FORBID}"
                    -DSTAMP=${stamp} -P ${CMAKE_SOURCE_DIR}/cmake/CheckLayer.cmake
            DEPENDS ${sources} ${CMAKE_SOURCE_DIR}/cmake/CheckLayer.cmake
            COMMENT "Checking the includes of ${name}"
            VERBATIM)
        add_custom_target(${name}_layer_check DEPENDS ${stamp})
        add_dependencies(${name} ${name}_layer_check)
    endif()
endfunction()
