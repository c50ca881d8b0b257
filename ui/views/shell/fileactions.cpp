#include "ui/views/shell/fileactions.h"

#include "core/attention/pytorchexport.h"
#include "ui/views/model/headviewwidget.h"
#include "ui/views/heatmap/heatmapwidget.h"
#include "ui/views/steps/matrixeditor.h"
#include "ui/views/model/overviewwidget.h"
#include "ui/views/shell/sessioncontroller.h"
#include "ui/views/teaching/teachingslides.h"
#include "ui/document/document.h"
#include "ui/document/viewstate.h"
#include "ui/export/exportfiles.h"
#include "ui/export/handoutwriter.h"
#include "ui/export/reportwriter.h"
#include "ui/render/heatmapexport.h"
#include "ui/render/headlinespainter.h"
#include "ui/render/heatmaprenderer.h"
#include "ui/render/overviewpainter.h"
#include "ui/render/slidepainter.h"

#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QInputDialog>
#include <QMainWindow>
#include <QSettings>

#include <cmath>

namespace ui {

namespace {

QString settingsKey(FileActions::Folder kind)
{
    return kind == FileActions::Folder::Export ? QStringLiteral("exportDirectory") : QStringLiteral("importDirectory");
}

}  // namespace

FileActions::FileActions(Document* document, ViewState* view, HeatmapWidget* heatmap, MatrixEditorPanel* matrices,
                         SessionController* session, QMainWindow* window)
    : QObject(window), m_document(document), m_view(view), m_heatmap(heatmap), m_matrices(matrices), m_session(session),
      m_window(window)
{
}

QString FileActions::lastFolder(Folder kind, QStandardPaths::StandardLocation fallback)
{
    return QSettings().value(settingsKey(kind), QStandardPaths::writableLocation(fallback)).toString();
}

void FileActions::rememberFolder(Folder kind, const QString& path, bool isFile)
{
    QSettings().setValue(settingsKey(kind), isFile ? QFileInfo(path).absolutePath() : path);
}

render::ExportResult FileActions::exportHeatmap(const QString& path, QSize pixelSize) const
{
    if (!m_heatmap->hasFigure())
        return render::ExportResult::failed(tr("There is no heatmap to export: %1").arg(m_document->error()));
    return render::exportHeatmap(m_heatmap->figureData(), m_heatmap->figureStyle(), path, pixelSize);
}

QSize FileActions::heatmapPreferredSize() const
{
    return m_heatmap->hasFigure()
        ? render::HeatmapRenderer(m_heatmap->figureData(), m_heatmap->figureStyle()).preferredSize()
        : QSize();
}

QString FileActions::askSavePath(const QString& title, const QString& suffix, const QString& filter,
                                 const QString& nameEnding)
{
    const QString dir = lastFolder(Folder::Export, QStandardPaths::DocumentsLocation);
    QString path = QFileDialog::getSaveFileName(
        m_window, title, dir + QLatin1Char('/') + m_session->suggestedBaseName() + nameEnding + suffix, filter);
    if (path.isEmpty())
        return {};
    if (QFileInfo(path).suffix().isEmpty())
        path += suffix;
    rememberFolder(Folder::Export, path);
    return path;
}

void FileActions::exportHeatmapDialog()
{
    if (!m_heatmap->hasFigure()) {
        m_session->showError(tr("Nothing to export"), m_document->error());
        return;
    }
    const QString dir = lastFolder(Folder::Export, QStandardPaths::PicturesLocation);
    const QString base = m_session->suggestedBaseName() + QLatin1Char('-')
        + QString::fromLatin1(core::stepKey(m_view->heatmapStep())).replace(QLatin1Char('_'), QLatin1Char('-'));
    const QString path = askFigurePath(tr("Export Heatmap"), base);
    if (path.isEmpty())
        return;
    QSize size;
    if (QFileInfo(path).suffix().compare(QLatin1String("png"), Qt::CaseInsensitive) == 0) {
        // A PNG has a pixel size: ask for its width, the height follows the figure.
        const QSize preferred = heatmapPreferredSize();
        QSettings settings;
        bool ok = false;
        const int width = QInputDialog::getInt(m_window, tr("Export Heatmap"),
                                               tr("Width of the PNG in pixels (the height follows the figure):"),
                                               settings.value(QStringLiteral("exportPngWidth"), preferred.width() * 2).toInt(),
                                               64, 16384, 100, &ok);
        if (!ok)
            return;
        settings.setValue(QStringLiteral("exportPngWidth"), width);
        size = QSize(width, std::max(16, int(std::lround(double(width) * preferred.height() / std::max(1, preferred.width())))));
    }
    const render::ExportResult result = exportHeatmap(path, size);
    if (!result.written) {
        m_session->showError(tr("Could not export the heatmap"), result.error);
        return;
    }
    showExported(tr("Exported %1").arg(QFileInfo(path).fileName()), render::logScaleNote(result.belowLogScale));
}

void FileActions::showExported(const QString& done, const QString& note)
{
    if (note.isEmpty()) {
        m_session->showStatus(done);
        return;
    }
    // The note in place of done, as MainWindow::noteLogScale shows it and for as long: done and the note together
    // are wider than the status bar of a 1280 pixel wide window, and the note is what must be read.
    m_session->showStatus(note, 10000);
}

QString FileActions::askFigurePath(const QString& title, const QString& base)
{
    const QString dir = lastFolder(Folder::Export, QStandardPaths::PicturesLocation);
    const QString png = tr("PNG image (*.png)"), svg = tr("SVG drawing (*.svg)"), pdf = tr("PDF document (*.pdf)");
    QString filter = png;
    QString path = QFileDialog::getSaveFileName(m_window, title, dir + QLatin1Char('/') + base + QStringLiteral(".png"),
                                                QStringList{png, svg, pdf}.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty())
        return {};
    if (!render::heatmapExportFormats().contains(QFileInfo(path).suffix().toLower()))
        path += filter == svg ? QStringLiteral(".svg") : filter == pdf ? QStringLiteral(".pdf") : QStringLiteral(".png");
    rememberFolder(Folder::Export, path);
    return path;
}

void FileActions::setFigureViews(OverviewWidget* overview, HeadViewWidget* headView)
{
    m_overview = overview;
    m_headView = headView;
}

std::shared_ptr<const render::AttentionGrid> FileActions::shownGrid() const
{
    if (!m_overview)
        return nullptr;
    m_overview->prepareNow();  // a hidden overview may hold an older grid, or none
    return m_overview->grid();
}

namespace {

/** A figure painted by paint written at preferred size (twice that for a PNG, as the command line does). */
render::ExportResult writeFigure(const render::FigurePaint& paint, QSize preferred, const QColor& background,
                                 const QString& title, const QString& path)
{
    if (QFileInfo(path).suffix().compare(QLatin1String("png"), Qt::CaseInsensitive) == 0)
        preferred *= 2;
    return render::exportFigure(paint, background, title, path, preferred);
}

}  // namespace

render::ExportResult FileActions::exportOverview(const QString& path) const
{
    const auto grid = shownGrid();
    if (!grid)
        return render::ExportResult::failed(tr("There is no overview to export: %1").arg(m_document->error()));
    const render::OverviewPainter painter(grid, m_overview->figureStyle());
    Eigen::Index cells = 0;
    const auto paint = [&painter, &cells](QPainter* p, const QRectF& target) { cells = painter.paint(p, target); };
    render::ExportResult result = writeFigure(paint, painter.preferredSize(),
                                              m_overview->figureStyle().palette.color(QPalette::Base), grid->title, path);
    result.belowLogScale = cells;
    return result;
}

render::ExportResult FileActions::exportHeadView(const QString& path) const
{
    const auto grid = shownGrid();
    if (!grid || !m_headView)
        return render::ExportResult::failed(tr("There is no head view to export: %1").arg(m_document->error()));
    render::HeadLinesView view = m_headView->view();
    view.hoveredToken = -1;
    render::HeadLinesStyle style;
    style.font = m_headView->canvas()->font();
    style.palette = m_headView->canvas()->palette();
    const render::HeadLinesPainter painter(grid, view, style);
    if (!painter.canDraw())
        return render::ExportResult::failed(
            tr("The head view draws up to %1 tokens; this session has %2.").arg(render::gridCellSide).arg(grid->n()));
    return writeFigure([&painter](QPainter* p, const QRectF& target) { painter.paint(p, target); }, painter.preferredSize(),
                       style.palette.color(QPalette::Base), painter.title(), path);
}

void FileActions::exportOverviewDialog()
{
    const QString path = askFigurePath(tr("Export Overview"), m_session->suggestedBaseName() + QStringLiteral("-overview"));
    if (path.isEmpty())
        return;
    const render::ExportResult result = exportOverview(path);
    if (!result.written) {
        m_session->showError(tr("Could not export the overview"), result.error);
        return;
    }
    showExported(tr("Exported %1").arg(QFileInfo(path).fileName()), render::logScaleNoteOfHeatmaps(result.belowLogScale));
}

void FileActions::exportHeadViewDialog()
{
    const QString path = askFigurePath(tr("Export Head View"), m_session->suggestedBaseName() + QStringLiteral("-head-view"));
    if (path.isEmpty())
        return;
    const render::ExportResult result = exportHeadView(path);
    if (!result.written) {
        m_session->showError(tr("Could not export the head view"), result.error);
        return;
    }
    m_session->showStatus(tr("Exported %1").arg(QFileInfo(path).fileName()));
}

void FileActions::copyHeatmap()
{
    if (!m_heatmap->hasFigure())
        return;
    const render::HeatmapRenderer renderer(m_heatmap->figureData(), m_heatmap->figureStyle());
    const QImage image =
        render::renderHeatmapImage(renderer, m_heatmap->figureStyle().palette.color(QPalette::Base), QSize());
    if (image.isNull())
        return;
    QGuiApplication::clipboard()->setImage(image);
    // A figure pasted into a slide says as little as a file of it: the same note as its export.
    showExported(tr("Copied the heatmap (%1 × %2 pixels)").arg(image.width()).arg(image.height()),
                 render::logScaleNote(renderer.colourScale().belowLogScale()));
}

exports::TraceWriter FileActions::reportWriter() const
{
    // The weighted values of the query and head the window shows.
    return exports::reportWriter({m_view->head(), m_view->selectedQuery()});
}

render::ExportResult FileActions::exportReport(const QString& path) const
{
    return writeTracePdf(reportWriter(), path);
}

render::ExportResult FileActions::exportHandout(const QString& path) const
{
    return writeTracePdf(exports::handoutWriter(), path);
}

void FileActions::exportReportDialog()
{
    exportTracePdf(tr("Export Report"), QStringLiteral("-report"), reportWriter(), tr("Could not write the report"),
                   tr("Wrote the report %1"));
}

void FileActions::exportHandoutDialog()
{
    exportTracePdf(tr("Export Handout"), QStringLiteral("-handout"), exports::handoutWriter(),
                   tr("Could not write the handout"), tr("Wrote the handout %1"));
}

render::ExportResult FileActions::writeTracePdf(exports::TraceWriter write, const QString& path) const
{
    const auto trace = m_document->trace();
    if (!trace)
        return render::ExportResult::failed(m_document->error());
    return write(*trace, m_session->sessionTitle(), path, m_heatmap->colourRange());
}

void FileActions::exportTracePdf(const QString& title, const QString& nameEnding, exports::TraceWriter write,
                                 const QString& failed, const QString& done)
{
    if (!m_document->trace()) {
        m_session->showError(tr("Nothing to export"), m_document->error());
        return;
    }
    const QString path = askSavePath(title, QStringLiteral(".pdf"), tr("PDF document (*.pdf)"), nameEnding);
    if (path.isEmpty())
        return;
    const render::ExportResult result = writeTracePdf(write, path);
    if (!result.written) {
        m_session->showError(failed, result.error);
        return;
    }
    showExported(done.arg(QFileInfo(path).fileName()), render::logScaleNoteOfHeatmaps(result.belowLogScale));
}

void FileActions::exportSlidesDialog()
{
    const auto trace = m_document->trace();
    if (!trace) {
        m_session->showError(tr("Nothing to export"), m_document->error());
        return;
    }
    const QString path =
        askSavePath(tr("Export Slides"), QStringLiteral(".pdf"), tr("PDF document (*.pdf)"), QStringLiteral("-slides"));
    if (path.isEmpty())
        return;
    const auto slides = buildSlides(*trace, std::clamp(m_view->head(), 0, trace->headCount() - 1), m_view->selectedQuery());
    QString error;
    if (!render::writeSlideDeck(slides, m_session->sessionTitle(), path, &error)) {
        m_session->showError(tr("Could not write the slides"), error);
        return;
    }
    m_session->showStatus(tr("Wrote the slides %1").arg(QFileInfo(path).fileName()));
}

void FileActions::exportStepsDialog()
{
    const auto trace = m_document->trace();
    if (!trace) {
        m_session->showError(tr("Nothing to export"), m_document->error());
        return;
    }
    const QString start = lastFolder(Folder::Export, QStandardPaths::DocumentsLocation);
    const QString folder = QFileDialog::getExistingDirectory(m_window, tr("Export Step Matrices into Folder"), start);
    if (folder.isEmpty())
        return;
    rememberFolder(Folder::Export, folder, false);
    // A model's trace.json names its tokens as --compute does, as the vocabulary writes them.
    std::vector<std::string> tokens =
        m_document->modelSession() ? m_document->modelSession()->vocabularyTokens() : std::vector<std::string>();
    if (int(tokens.size()) != trace->n())
        tokens.clear();  // the trace is still of the text before
    QString error;
    QStringList written;
    if (!exports::writeStepFiles(*trace, folder, &error, &written, tokens)) {
        m_session->showError(tr("Could not export the step matrices"), error);
        return;
    }
    m_session->showStatus(tr("Wrote %1 files into %2").arg(written.size()).arg(folder));
}

void FileActions::exportCodeDialog()
{
    const QString path = askSavePath(tr("Export PyTorch Code"), QStringLiteral(".py"), tr("Python file (*.py)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exports::writePytorchFile(m_document->model(), m_session->sessionTitle(), path, &error)) {
        m_session->showError(tr("Could not write the code"), error);
        return;
    }
    m_session->showStatus(tr("Wrote %1").arg(QFileInfo(path).fileName()));
}

void FileActions::copyCode()
{
    const std::string code = core::pytorchCode(m_document->model(), m_session->sessionTitle().toStdString());
    QGuiApplication::clipboard()->setText(QString::fromStdString(code));
    m_session->showStatus(tr("Copied PyTorch code for this session"));
}

void FileActions::importMatrixDialog()
{
    const MatrixId id = m_matrices->currentMatrix();
    const core::Matrix& current = m_document->matrix(id);
    if (current.size() == 0) {
        m_session->showError(tr("Nothing to replace"), tr("This session has no %1.").arg(matrixTitle(id)));
        return;
    }
    const QString start = lastFolder(Folder::Import, QStandardPaths::DocumentsLocation);
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Import Matrix into %1").arg(matrixTitle(id)), start,
                                                      tr("Matrices (*.npy *.csv *.tsv *.txt);;All files (*)"));
    if (path.isEmpty())
        return;
    rememberFolder(Folder::Import, path);
    importMatrixFile(path);
}

void FileActions::importMatrixFile(const QString& path)
{
    const MatrixId id = m_matrices->currentMatrix();
    const core::Matrix& current = m_document->matrix(id);
    QString error;
    const auto matrix = exports::readMatrixFile(path, &error);
    if (!matrix) {
        m_session->showError(tr("Could not import the matrix"), error);
        return;
    }
    if (matrix->rows() != current.rows() || matrix->cols() != current.cols()) {
        m_session->showError(tr("Could not import the matrix"),
                             tr("%1 is %2 × %3, but %4 needs %5 × %6. Change the dimensions first, or paste a block.")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(matrix->rows())
                                 .arg(matrix->cols())
                                 .arg(matrixTitle(id))
                                 .arg(current.rows())
                                 .arg(current.cols()));
        return;
    }
    m_document->setMatrix(id, *matrix, tr("Imported %1 into %2").arg(QFileInfo(path).fileName(), matrixTitle(id)));
}

void FileActions::exportMatrixDialog()
{
    const MatrixId id = m_matrices->currentMatrix();
    const core::Matrix& current = m_document->matrix(id);
    if (current.size() == 0)
        return;
    const QString path = askSavePath(tr("Export %1").arg(matrixTitle(id)), QStringLiteral(".npy"),
                                     tr("NumPy array (*.npy);;CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exports::writeMatrixFile(path, current, &error)) {
        m_session->showError(tr("Could not export the matrix"), error);
        return;
    }
    m_session->showStatus(tr("Wrote %1").arg(QFileInfo(path).fileName()));
}

}  // namespace ui
