# Run at build time (cmake -P) for one layer: fails when a file of the layer includes a header
# from a folder the layer may not use.
#   -DLAYER=name  -DFILES=a.cpp;b.h  -DFORBIDDEN=ui/views;app  -DSTAMP=file to touch on success
set(problems "")
foreach(file IN LISTS FILES)
    file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
    foreach(line IN LISTS includes)
        foreach(folder IN LISTS FORBIDDEN)
            if(line MATCHES "[\"<]${folder}/")
                string(STRIP "${line}" line)
                string(APPEND problems "\n  ${file}: ${line}")
            endif()
        endforeach()
    endforeach()
endforeach()
if(problems)
    message(FATAL_ERROR "The layer ${LAYER} may not use ${FORBIDDEN}:${problems}")
endif()
file(TOUCH "${STAMP}")
