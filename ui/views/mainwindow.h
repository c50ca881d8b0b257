#pragma once
/** The main window: the document's views around the attention heatmap. */

#include <QMainWindow>

namespace ui {

class Document;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    Document* document() const { return m_document; }
    /** Opens a session file; on failure the current document is untouched and error says why. */
    bool openFile(const QString& path, QString* error);

private:
    Document* m_document;
};

}  // namespace ui
