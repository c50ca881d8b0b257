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

}  // namespace ui
