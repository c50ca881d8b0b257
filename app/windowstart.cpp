#include "windowstart.h"

#include "ui/document/document.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/shell/sessioncontroller.h"

#include <cstdio>

namespace app {

void openWindowSource(ui::MainWindow& window, const WindowSource& source)
{
    ui::SessionController* session = window.session();
    QString error;
    if (source.session)
        window.document()->loadSession(*source.session, QString());
    else if (!source.file.isEmpty())
        session->openFileOrSay(source.file, &error);
    else if (!source.modelFolder.isEmpty())
        session->openModelFolderOrSay(source.modelFolder, &error, source.modelText, source.modelLayer);
    if (!error.isEmpty())  // refused: the box says so, and so does standard error
        std::fprintf(stderr, "attention-explorer: %s\n", qPrintable(error));
}

}  // namespace app
