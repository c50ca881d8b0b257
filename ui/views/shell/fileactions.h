#pragma once
/** FileActions: what the window writes and reads besides sessions. The heatmap as PNG, SVG or PDF or
 *  on the clipboard, the PDF report, the step matrices, PyTorch code, one matrix in or out. The
 *  dialogs start in the folder last used, remembered in one place. */

#include "ui/export/printpage.h"

#include <QObject>
#include <QSize>
#include <QStandardPaths>
#include <QString>

#include <memory>

class QMainWindow;

namespace core {
struct Trace;
}

namespace render {
struct AttentionGrid;
}

namespace ui {

class Document;
class HeatmapWidget;
class HeadViewWidget;
class MatrixEditorPanel;
class OverviewWidget;
class SessionController;
class ViewState;

class FileActions : public QObject {
    Q_OBJECT
public:
    FileActions(Document* document, ViewState* view, HeatmapWidget* heatmap, MatrixEditorPanel* matrices,
                SessionController* session, QMainWindow* window);

    /** Writes the heatmap as shown to path (.png, .svg or .pdf); the result says what failed, or how many cells its
     *  log colour scale could not place, as the renderer that drew it counted. */
    render::ExportResult exportHeatmap(const QString& path, QSize pixelSize = QSize()) const;
    /** The size the heatmap figure is drawn at by default (what an empty pixelSize means). */
    QSize heatmapPreferredSize() const;

    void exportHeatmapDialog();
    /** The overview and head view docks whose figures File › Export Overview and Export Head View write. */
    void setFigureViews(OverviewWidget* overview, HeadViewWidget* headView);
    /** Writes the overview as shown (every layer × head) to path (.png, .svg or .pdf). The result counts the cells
     *  its log colour scales could not place, summed over its heatmaps as the painter counted. */
    render::ExportResult exportOverview(const QString& path) const;
    /** Writes the head view as shown (its layer and heads, without the hover) to path. */
    render::ExportResult exportHeadView(const QString& path) const;
    void exportOverviewDialog();
    void exportHeadViewDialog();
    void copyHeatmap();
    /** Writes the PDF report of the shown trace to path, its attention heatmaps in the heatmap's colour range;
     *  the result as exportOverview()'s, counted by the writer. */
    render::ExportResult exportReport(const QString& path) const;
    /** Writes the one-page handout of the shown trace to path, its heatmaps in the heatmap's colour range;
     *  the result as exportOverview()'s, counted by the writer. */
    render::ExportResult exportHandout(const QString& path) const;
    void exportReportDialog();
    /** Asks where to write the one-page handout (the tokens, the heatmap, the seven formulas) and writes it. */
    void exportHandoutDialog();
    /** Asks for a .pdf and writes the teaching slides of the current head and query to it. */
    void exportSlidesDialog();
    void exportStepsDialog();
    void exportCodeDialog();
    void copyCode();
    /** Asks for a matrix file and imports it (importMatrixFile). */
    void importMatrixDialog();
    /** Replaces the current editor tab's matrix with the one in path (.npy, .csv, .tsv, .txt) as one undoable
     *  step; a file that cannot be read, or of another shape, is refused in an error box. */
    void importMatrixFile(const QString& path);
    void exportMatrixDialog();

    /** Which last-used folder a dialog starts in. */
    enum class Folder { Export, Import };
    /** The folder last used for kind, or the standard location fallback the first time. */
    static QString lastFolder(Folder kind, QStandardPaths::StandardLocation fallback);
    /** Remembers folder for kind (a file's path remembers the folder it is in). */
    static void rememberFolder(Folder kind, const QString& path, bool isFile = true);

private:
    /** Asks where to write a file (starting in the export folder with the suggested name, nameEnding and
     *  suffix); empty when cancelled. A name without a suffix gets suffix. */
    QString askSavePath(const QString& title, const QString& suffix, const QString& filter,
                        const QString& nameEnding = QString());
    /** Asks where to write a figure (PNG, SVG or PDF, by the filter chosen when the name has no ending),
     *  starting with base; empty when cancelled. */
    QString askFigurePath(const QString& title, const QString& base);
    /** The grid the overview shows, waiting for the newest; null when there is none. */
    std::shared_ptr<const render::AttentionGrid> shownGrid() const;
    /** Writes a PDF of the current trace to path with write (the report or the handout), in the heatmap's
     *  colour range: write's result, or a failure when there is no trace. */
    render::ExportResult writeTracePdf(exports::TraceWriter write, const QString& path) const;
    /** The report's writer, its weighted values walking the query and head the window shows. */
    exports::TraceWriter reportWriter() const;
    /** Asks where to write a PDF of the current trace (dialog title, suggested name ending) and writes it
     *  with write; says failed or done (with %1 the file name) to the user, or instead of done what the log
     *  colour range could not place (render::logScaleNoteOfHeatmaps) when there is any. */
    void exportTracePdf(const QString& title, const QString& nameEnding, exports::TraceWriter write,
                        const QString& failed, const QString& done);
    /** Says done in the status bar, or note (what a log colour range could not place) in its place when there is one. */
    void showExported(const QString& done, const QString& note);

    Document* m_document;
    ViewState* m_view;
    HeatmapWidget* m_heatmap;
    MatrixEditorPanel* m_matrices;
    OverviewWidget* m_overview = nullptr;
    HeadViewWidget* m_headView = nullptr;
    SessionController* m_session;
    QMainWindow* m_window;
};

}  // namespace ui
