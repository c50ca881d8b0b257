#pragma once
/** The command line of SPEC §3: what runs without a window. */

#include "core/session/sessionfile.h"

#include <QStringList>

#include <optional>

namespace app {

/** Exit statuses of SPEC §3. */
enum ExitStatus { ExitOk = 0, ExitFailed = 1, ExitRefused = 2 };

/** True when the arguments ask for something that needs no window (an action of headlessCalls(), --help,
 *  --version, or arguments refused with a message), so a headless platform will do. */
bool isHeadlessRequest(const QStringList& arguments);

/** The actions that need no window, as called: "--compute FILE", "--export-heatmap OUT", … */
QStringList headlessCalls();

/** The value of --lang (en or zh_CN) as given, before any parsing; empty when there is none.
 *  For loading translations before the parser's own texts are built. */
QString languageArgument(const QStringList& arguments);

/** What the window opens with: SPEC §3's `attention-explorer [FILE]`, and compatibly a source given without an
 *  action. At most one of them is given; none: the built-in worked example. */
struct WindowSource {
    QString file;                          ///< FILE or --session FILE
    QString modelFolder;                   ///< --model DIR, absolute
    QString modelText;                     ///< --text TEXT; empty: the window's sample text
    int modelLayer = 1;                    ///< --layer L, from 1
    std::optional<core::Session> session;  ///< --preset NAME or --tokens TEXT
};

/** Parses the arguments and runs a headless request; returns the exit status.
 *  When the arguments ask for the window instead, returns -1 and sets window to what it opens with;
 *  without window that is refused (exit status 2). */
int runCommandLine(const QStringList& arguments, WindowSource* window);

}  // namespace app
