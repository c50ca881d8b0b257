#include "windowstart.h"

#include "core/session/builtinmodel.h"
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
    else if (core::isBuiltinModel(source.modelFolder.toStdString()) && source.modelText.isEmpty() && source.modelLayer == 1)
        session->openBuiltinModel();  // as File › Open Built-in Model: on its preset's text, layer, head and query
    else if (!source.modelFolder.isEmpty())
        session->openModelFolderOrSay(source.modelFolder, &error, source.modelText, source.modelLayer);
    if (!error.isEmpty())  // refused: the box says so, and so does standard error
        std::fprintf(stderr, "attention-explorer: %s\n", qPrintable(error));
}

}  // namespace app
