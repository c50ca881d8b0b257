#include "windowstart.h"

#include "ui/document/document.h"
#include "ui/views/mainwindow.h"
#include "ui/views/sessioncontroller.h"

#include <cstdio>

namespace app {

void openWindowSource(ui::MainWindow& window, const WindowSource& source)
{
    ui::SessionController* session = window.session();
    QString error;
    QString title;
    if (source.session) {
        window.document()->loadSession(*source.session, QString());
    } else if (!source.file.isEmpty()) {
        if (!session->openFile(source.file, &error))
            title = ui::SessionController::tr("Could not open the session");
    } else if (!source.modelFolder.isEmpty()) {
        if (!session->openModelFolder(source.modelFolder, &error, source.modelText, source.modelLayer))
            title = ui::SessionController::tr("Cannot open the model");
    }
    if (error.isEmpty())
        return;  // opened, nothing to open, or a model's load cancelled
    std::fprintf(stderr, "attention-explorer: %s\n", qPrintable(error));
    session->showError(title, error);
}

}  // namespace app
