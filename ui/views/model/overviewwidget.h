#pragma once
/** OverviewWidget: every layer × head at once (render::OverviewPainter), drawn off the GUI thread.
 *  Click a cell to show that layer and head; hover to see it enlarged with its tokens and descriptors.
 *
 *  Where the grid comes from is a GridSource: by default the document's trace, its heads as one layer
 *  (1 × h). A real model session sets its own source (every layer of the model's run) with
 *  setGridSource() and calls refresh() after each change; the window's hook is MainWindow::showFromOverview. */

#include "ui/document/latestjob.h"
#include "ui/render/overviewpainter.h"

#include <QImage>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>

namespace ui {

class Document;

class OverviewWidget : public QWidget {
    Q_OBJECT
public:
    /** Runs on a worker and builds the grid (or hands over one already built, without a copy); it must not touch
     *  any QObject. */
    using GridJob = std::function<std::shared_ptr<const render::AttentionGrid>()>;
    /** Called on the GUI thread when a grid is wanted: the job for the state of that moment (empty: none). */
    using GridSource = std::function<GridJob()>;

    explicit OverviewWidget(Document* document, QWidget* parent = nullptr);
    ~OverviewWidget() override;

    /** Where the grid comes from from now on (empty: the document's trace again); asks for one at once. */
    void setGridSource(GridSource source);
    /** The source that reads the document's trace (the default). */
    GridSource documentSource() const;
    /** Asks the source for a new grid (after an edit); the grid shown stays until it comes. While neither
     *  this widget nor a viewer is visible, the grid is only marked stale and made once one shows. */
    void refresh();
    /** Makes the grid and picture of the current state now, shown or not, and waits for them (for export). */
    void prepareNow();
    /** A widget besides this one that shows the grid (the head view): it keeps the grid fresh while visible. */
    void addViewer(QWidget* viewer);

    /** The cell outlined as the one shown elsewhere (layer and head from 0; −1: none). */
    void setCurrent(int layer, int head);
    std::pair<int, int> current() const { return {m_currentLayer, m_currentHead}; }
    void setColourRange(render::ColourRange range);
    render::ColourRange colourRange() const { return m_colourRange; }

    /** The grid shown, null before the first one came. */
    std::shared_ptr<const render::AttentionGrid> grid() const { return m_grid; }
    /** Waits until the grid and picture asked for are shown (for tests and exports). */
    void finishPreparing();
    /** Where cell (layer, head) is in widget coordinates; empty when there is none. */
    QRectF cellRect(int layer, int head) const;
    /** The style of the figure as shown (for export). */
    render::OverviewStyle figureStyle() const;
    /** The tooltip of a cell: its layer, head, label and descriptors. */
    QString cellText(int layer, int head) const;
    /** The cell enlarged under the mouse, if any. */
    std::optional<std::pair<int, int>> hoveredCell() const { return m_hover; }
    /** The picture shown (for tests). */
    QImage picture() const { return m_image; }
    /** How many pictures were drawn on workers (for tests and profiling). */
    quint64 picturesMade() const { return m_job.jobsStarted(); }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    /** A cell was clicked (or chosen with Enter): show that layer and head. */
    void cellChosen(int layer, int head);
    /** A new grid is shown. */
    void gridChanged(std::shared_ptr<const render::AttentionGrid> grid);

protected:
    bool event(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct Picture {
        std::shared_ptr<const render::AttentionGrid> grid;
        bool built = false;  ///< the grid is new, from the source
        QImage image;
        QSize size;          ///< what the image was drawn for: size, pixel ratio, range and style
        double dpr = 1.0;
        render::ColourRange colourRange = render::ColourRange::Fixed;
        quint64 styleGeneration = 0;
    };
    LatestJob<std::shared_ptr<Picture>>::Job preparing();
    void prepared(std::shared_ptr<Picture> picture);
    void requestPicture();
    void setHover(std::optional<std::pair<int, int>> cell);
    bool isNeeded() const;
    void paintEnlarged(QPainter* painter, int layer, int head);

    Document* m_document;
    GridSource m_source;
    bool m_sourceIsDocument = true;  ///< the document's trace: refreshed on each new trace
    bool m_gridWanted = true;  ///< the next picture needs a new grid from the source
    bool m_stale = false;      ///< a refresh came while no one looked: made when one shows
    bool m_outdated = false;   ///< the grid kept is older than the last refresh that came while hidden
    QList<QWidget*> m_viewers;
    std::shared_ptr<const render::AttentionGrid> m_grid;
    std::shared_ptr<const render::AttentionGrid> m_shownGrid;  ///< the grid gridChanged() last announced
    std::unique_ptr<render::OverviewPainter> m_painter;  ///< for hit tests and the outline, over m_grid
    QImage m_image;
    std::shared_ptr<const Picture> m_picture;  ///< the picture shown, which the next one may start from
    quint64 m_styleGeneration = 0;              ///< counts changes of language, palette and font
    render::ColourRange m_colourRange = render::ColourRange::Fixed;
    int m_currentLayer = -1;
    int m_currentHead = -1;
    std::optional<std::pair<int, int>> m_hover;
    std::unique_ptr<render::HeatmapRenderer> m_enlarged;  ///< the hovered cell with its labels
    LatestJob<std::shared_ptr<Picture>> m_job;
};

}  // namespace ui
