#pragma once
/** InstrumentView: a model session's logit lens or direct logit attribution (SPEC §8) for a target token, drawn by
 *  render::GridFigurePainter as the command line's --export-lens and --export-attribution draw them. The numbers
 *  come with each pass (Document::lens(), attribution()), made only while a view of them is shown. Hover a cell
 *  for what it says; click a lens cell to show its layer and position, an attribution head to show that head. */

#include "ui/document/modelrunner.h"
#include "ui/render/exportresult.h"
#include "ui/render/gridfigure.h"

#include <QPointer>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QScrollArea;

namespace ui {

class Document;
class InlineMessage;

class InstrumentView : public QWidget {
    Q_OBJECT
public:
    InstrumentView(Document* document, Instrument which, QWidget* parent = nullptr);
    ~InstrumentView() override;

    Instrument instrument() const { return m_which; }
    /** The target's chooser: the most probable token, the Next Token candidates, or a token typed. */
    QComboBox* targetBox() const { return m_target; }
    /** Chooses the target a text names (a candidate's token, one token typed, or #id); false with the reason
     *  shown under the chooser when it is not exactly one token. */
    bool chooseTarget(const QString& text);
    /** The reason the last text typed was refused; empty when it was not. */
    QString refusal() const;
    /** The line in words under the chooser (what is shown, and the attribution's sum). */
    QString summary() const;
    /** What the view says instead of a figure (no model, or computing); empty while a figure is shown. */
    QString emptyText() const;
    /** The figure shown, null while none is. */
    const render::GridFigurePainter* figure() const { return m_painter.get(); }
    /** The widget the figure is drawn on, and where its cell (row, column) is there. */
    QWidget* canvas() const;
    QRectF cellRect(int row, int column) const;
    /** The tooltip of cell (row, column) of the figure shown. */
    QString cellText(int row, int column) const;
    /** Writes what is shown by path's ending: the figure (.png at twice its size, .svg, .pdf, on white, as
     *  --export-lens draws it) or the numbers (.json, .csv, as --export-lens writes them). */
    render::ExportResult save(const QString& path) const;

signals:
    /** A cell was clicked: show that layer (0-based) and head (−1: a lens cell, the head shown stays). A lens cell
     *  also chooses its position for the next token, and so for the attribution. */
    void cellChosen(int layer, int head);

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    class Canvas;
    void showResult();
    void syncCandidates();
    void cellClicked(int row, int column);
    /** Asks where to save (images, or the numbers when data) and saves there, saying how it went. */
    void saveDialog(bool data);

    QPointer<Document> m_document;  ///< a floating dock may outlive the window's document
    Instrument m_which;
    QComboBox* m_target;
    InlineMessage* m_refusal;
    QLabel* m_summary;
    QLabel* m_empty;
    QScrollArea* m_scroll;
    Canvas* m_canvas;
    std::unique_ptr<render::GridFigurePainter> m_painter;
    std::shared_ptr<const LensResult> m_lens;               ///< what the figure shows
    std::shared_ptr<const AttributionResult> m_attribution;
};

}  // namespace ui
