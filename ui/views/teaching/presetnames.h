#pragma once
/** The built-in presets as the menus show them: a human name and a description in the interface
 *  language, keyed by the preset's machine name. The command line keeps core's names and
 *  descriptions (scripts read `--list-presets`). */

#include <QString>

namespace ui {

/** The preset's name for people ("The Illustrated: Self-Attention example"); name itself when unknown. */
QString presetTitle(const QString& name);
/** One line on what the preset shows; core's English description when the name is unknown. */
QString presetDescription(const QString& name);
/** A session's stored title as exports and the window show it: the title core gives a built-in preset's session
 *  in the interface language, any other title as it is (the file keeps what was stored). */
QString sessionTitleForPeople(const QString& stored);

}  // namespace ui
