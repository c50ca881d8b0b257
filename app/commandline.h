#pragma once
/** The command line of SPEC §3: what runs without a window. */

#include <QStringList>

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

/** Parses the arguments and runs a headless request; returns the exit status.
 *  When the arguments ask for the window instead, returns -1 and sets windowFile to the file
 *  to open (empty for the built-in example); without windowFile that is refused (exit status 2). */
int runCommandLine(const QStringList& arguments, QString* windowFile);

}  // namespace app
