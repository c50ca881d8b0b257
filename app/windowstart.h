#pragma once
/** The window's start: what the command line gave it to open (WindowSource), opened as a desktop app opens a file. */

#include "commandline.h"

namespace ui {
class MainWindow;
}

namespace app {

/** Opens source in window (shown): a session file, a model folder, a preset or typed text. When it is refused, the
 *  window keeps the worked example as it was, and a message box (the one File → Open shows) and standard error
 *  name the file and what is wrong: started from a file manager, a window with no word would say nothing. */
void openWindowSource(ui::MainWindow& window, const WindowSource& source);

}  // namespace app
