#include "mainwindow.h"

#include "ui/document/document.h"

namespace ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), m_document(new Document(this))
{
    resize(1200, 800);
}

MainWindow::~MainWindow() = default;

bool MainWindow::openFile(const QString& path, QString* error)
{
    return m_document->openFile(path, error);
}

}  // namespace ui
