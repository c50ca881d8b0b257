# The Debian package, built by CPack from the install rules (app/, resources/ and the lines below).
# `scripts/package` makes it from a Release build of its own; tst_package makes one from the test build.
# Included from the root CMakeLists.txt after every install rule is declared.

include(GNUInstallDirs)

# ae_install_gzipped(FILE DESTINATION): installs FILE.gz, compressed at build time as Debian policy
# asks for man pages and changelogs (-n: no name or time stamp, so the same file gives the same bytes).
find_program(AE_GZIP gzip REQUIRED)
function(ae_install_gzipped file destination)
    get_filename_component(name ${file} NAME)
    set(gz ${CMAKE_BINARY_DIR}/${name}.gz)
    add_custom_command(OUTPUT ${gz}
        COMMAND ${AE_GZIP} -9 -n -c ${file} > ${gz}
        DEPENDS ${file}
        COMMENT "Compressing ${name}"
        VERBATIM)
    add_custom_target(${name}_gz ALL DEPENDS ${gz})
    install(FILES ${gz} DESTINATION ${destination})
endfunction()

# The man page, with the project's version in its header.
configure_file(${CMAKE_SOURCE_DIR}/resources/attention-explorer.1 ${CMAKE_BINARY_DIR}/attention-explorer.1 @ONLY)
ae_install_gzipped(${CMAKE_BINARY_DIR}/attention-explorer.1 ${CMAKE_INSTALL_MANDIR}/man1)

# The licence where Debian keeps it, under the name Debian gives it.
install(FILES ${CMAKE_SOURCE_DIR}/LICENSE
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/attention-explorer
    RENAME copyright)

# Debian policy names a maintainer with an e-mail address; whoever builds the package says who
# answers for it, as the Debian tools do (DEBFULLNAME and DEBEMAIL), or with -DAE_PACKAGE_MAINTAINER.
if(DEFINED ENV{DEBFULLNAME} AND DEFINED ENV{DEBEMAIL})
    set(ae_maintainer_default "$ENV{DEBFULLNAME} <$ENV{DEBEMAIL}>")
else()
    set(ae_maintainer_default "The Attention Explorer authors <attention-explorer@example.org>")
endif()
set(AE_PACKAGE_MAINTAINER "${ae_maintainer_default}" CACHE STRING
    "Maintainer field of the Debian package: Name <e-mail>")

# A Debian package carries a changelog in Debian's format; this one names the version built and
# when (SOURCE_DATE_EPOCH fixes the time for a reproducible build).
string(TIMESTAMP ae_package_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(AE_CHANGELOG ${CMAKE_BINARY_DIR}/changelog)
file(CONFIGURE OUTPUT ${AE_CHANGELOG} CONTENT "attention-explorer (${PROJECT_VERSION}) unstable; urgency=medium

  * Attention Explorer ${PROJECT_VERSION}, built from its sources.

 -- ${AE_PACKAGE_MAINTAINER}  ${ae_package_date}
")
ae_install_gzipped(${AE_CHANGELOG} ${CMAKE_INSTALL_DATADIR}/doc/attention-explorer)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME attention-explorer)
set(CPACK_PACKAGE_VENDOR "The Attention Explorer authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${AE_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)

set(CPACK_DEBIAN_PACKAGE_NAME attention-explorer)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # attention-explorer_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${AE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends: what dpkg-shlibdeps finds from the libraries the binary links (Qt, the C++ runtime).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The Chinese interface needs a CJK font; Qt's own dialogs take their Chinese from its translations.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-wqy-microhei | fonts-noto-cjk, qt6-translations-l10n")
# The long description; CPack puts the summary above it and indents it as the control file wants.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Attention Explorer makes scaled dot-product self-attention visible and
editable. Type tokens, edit the embeddings and the weight matrices cell by
cell, and watch Q, K, V, the scores, the softmax and the output follow as
you type. Hover any number to see the arithmetic behind it.

A teaching mode shows one step per slide, full screen. The heatmap exports
as PNG, SVG or PDF, a PDF report has a page per step, and PyTorch code
reproduces a session. Computing and exporting also run from the command
line with no display. The interface is in English and Simplified Chinese.")

include(CPack)
