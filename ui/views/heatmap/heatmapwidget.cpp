#include "ui/views/heatmap/heatmapwidget.h"

#include "ui/views/widgets/flowlayout.h"
#include "ui/views/heatmap/heatmapaccessible.h"
#include "ui/views/heatmap/heatmapcanvas.h"
#include "ui/document/document.h"
#include "ui/i18n/language.h"
#include "ui/render/stepfigure.h"
#include "ui/document/viewstate.h"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ui {

namespace {

constexpr double zoomStep = 1.25;
constexpr double minZoom = 0.2;
constexpr double maxZoom = 8.0;

QString colormapTitle(render::ColormapId id)
{
    switch (id) {
    case render::ColormapId::Viridis: return HeatmapWidget::tr("Viridis");
    case render::ColormapId::Magma: return HeatmapWidget::tr("Magma");
    case render::ColormapId::Cividis: return HeatmapWidget::tr("Cividis");
    case render::ColormapId::Grays: return HeatmapWidget::tr("Grays");
    case render::ColormapId::Diverging: return HeatmapWidget::tr("Blue–white–red");
    }
    return {};
}

QString colourRangeTitle(render::ColourRange range)
{
    switch (range) {
    case render::ColourRange::Fixed: return HeatmapWidget::tr("Fixed");
    case render::ColourRange::Matrix: return HeatmapWidget::tr("Matrix min–max");
    case render::ColourRange::Row: return HeatmapWidget::tr("Each row");
    case render::ColourRange::Log: return HeatmapWidget::tr("Logarithmic");
    }
    return {};
}

QList<render::ColormapId> allColormaps()
{
    QList<render::ColormapId> ids;
    for (const QString& name : render::colormapNames())
        if (auto id = render::colormapFromName(name))
            ids << *id;
    return ids;
}

/** Keeps the canvas at least as large as the viewport while zoomed, so the figure stays centred. */
class ViewportWatcher : public QObject {
public:
    ViewportWatcher(QScrollArea* area, HeatmapCanvas* canvas) : QObject(area), m_area(area), m_canvas(canvas) {}
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Resize && watched == m_area->viewport() && !m_area->widgetResizable())
            m_canvas->resize(m_canvas->sizeHint().expandedTo(m_area->viewport()->size()));
        return false;
    }

private:
    QScrollArea* m_area;
    HeatmapCanvas* m_canvas;
};

}  // namespace

const QList<core::Step>& HeatmapWidget::heatmapSteps()
{
    static const QList<core::Step> steps = {core::Step::Scores, core::Step::ScaledScores, core::Step::Weights};
    return steps;
}

HeatmapWidget::HeatmapWidget(Document* document, ViewState* viewState, QWidget* parent)
    : QWidget(parent), m_document(document), m_viewState(viewState)
{
    setObjectName(QStringLiteral("heatmapWidget"));
    installHeatmapAccessible();
    m_canvas = new HeatmapCanvas(document, viewState);
    m_scroll = new QScrollArea;
    m_scroll->setObjectName(QStringLiteral("heatmapScrollArea"));
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setAlignment(Qt::AlignCenter);
    m_scroll->setBackgroundRole(QPalette::Base);
    m_scroll->setWidgetResizable(true);
    m_scroll->setWidget(m_canvas);
    m_scroll->viewport()->installEventFilter(new ViewportWatcher(m_scroll, m_canvas));

    m_stepBox = new QComboBox;
    m_stepBox->setObjectName(QStringLiteral("stepBox"));
    for (core::Step step : heatmapSteps())
        m_stepBox->addItem(QString(), int(step));
    m_headBox = new QComboBox;
    m_headBox->setObjectName(QStringLiteral("headBox"));
    m_layerBox = new QComboBox;
    m_layerBox->setObjectName(QStringLiteral("layerBox"));
    // Their items change with the session ("1 of 1" → "10 of 12"): the boxes grow with them.
    m_headBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_layerBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_colormapBox = new QComboBox;
    m_colormapBox->setObjectName(QStringLiteral("colormapBox"));
    m_colormapBox->addItem(QString(), -1);
    for (render::ColormapId id : allColormaps())
        m_colormapBox->addItem(QString(), int(id));
    m_rangeBox = new QComboBox;
    m_rangeBox->setObjectName(QStringLiteral("colourRangeBox"));
    for (const QString& name : render::colourRangeNames())
        m_rangeBox->addItem(QString(), int(*render::colourRangeFromName(name)));

    buildActions();

    auto* stepLabel = new QLabel;
    stepLabel->setBuddy(m_stepBox);
    m_headLabel = new QLabel;
    m_headLabel->setBuddy(m_headBox);
    auto* colourLabel = new QLabel;
    colourLabel->setBuddy(m_colormapBox);
    auto* rangeLabel = new QLabel;
    rangeLabel->setBuddy(m_rangeBox);
    auto* layerLabel = new QLabel;
    layerLabel->setBuddy(m_layerBox);
    const auto toolButton = [](QAction* action) {
        auto* button = new QToolButton;
        button->setDefaultAction(action);
        button->setAutoRaise(true);
        return button;
    };

    // The toolbar wraps onto more lines in a narrow window; each label stays with its chooser.
    auto* bar = new FlowLayout(nullptr, 16, 4);
    bar->setContentsMargins(8, 6, 8, 6);
    bar->addWidget(FlowLayout::group({stepLabel, m_stepBox}, 6));
    m_layerGroup = FlowLayout::group({layerLabel, m_layerBox}, 6);
    bar->addWidget(m_layerGroup);
    bar->addWidget(FlowLayout::group({m_headLabel, m_headBox}, 6));
    bar->addWidget(FlowLayout::group({colourLabel, m_colormapBox}, 6));
    bar->addWidget(FlowLayout::group({rangeLabel, m_rangeBox}, 6));
    bar->addWidget(FlowLayout::group(
        {toolButton(m_annotate), toolButton(m_zoomOut), toolButton(m_zoomFit), toolButton(m_zoomIn)}, 6));

    auto* rule = new QFrame;
    rule->setFrameShape(QFrame::HLine);
    rule->setFrameShadow(QFrame::Sunken);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(rule);
    layout->addWidget(m_scroll, 1);

    connect(m_stepBox, &QComboBox::activated, this, [this](int index) {
        m_viewState->setHeatmapStep(core::Step(m_stepBox->itemData(index).toInt()));
    });
    connect(m_headBox, &QComboBox::activated, this, [this](int index) { m_viewState->setHead(index); });
    connect(m_layerBox, &QComboBox::activated, document, &Document::setShownLayer);
    connect(document, &Document::shownLayerChanged, this, &HeatmapWidget::syncLayerBox);
    connect(document, &Document::modelChanged, this, [this](const ModelChange& change) {
        if (change.kind == ModelChange::Kind::Model)
            syncLayerBox();
    });
    connect(m_colormapBox, &QComboBox::activated, this, [this](int index) {
        const int id = m_colormapBox->itemData(index).toInt();
        setColormapChoice(id < 0 ? std::nullopt : std::optional(render::ColormapId(id)));
    });
    connect(m_rangeBox, &QComboBox::activated, this,
            [this](int index) { setColourRange(render::ColourRange(m_rangeBox->itemData(index).toInt())); });
    connect(viewState, &ViewState::heatmapStepChanged, this, &HeatmapWidget::syncControls);
    connect(viewState, &ViewState::headChanged, this, &HeatmapWidget::syncControls);
    connect(document, &Document::traceChanged, this, &HeatmapWidget::syncControls);
    connect(document, &Document::errorChanged, this, &HeatmapWidget::syncControls);
    connect(m_canvas, &HeatmapCanvas::zoomRequested, this, [this](int delta, const QPoint& pos) {
        if (delta != 0)
            zoomBy(std::pow(zoomStep, delta / 120.0), pos);
    });
    connect(m_canvas, &HeatmapCanvas::figureChanged, this, [this] {
        if (!m_scroll->widgetResizable())
            m_canvas->resize(m_canvas->sizeHint().expandedTo(m_scroll->viewport()->size()));
    });
    i18n::onLanguageChange(this, [this, stepLabel, colourLabel, rangeLabel, layerLabel] {
        rangeLabel->setText(tr("&Range"));
        for (int i = 0; i < m_rangeBox->count(); ++i)
            m_rangeBox->setItemText(i, colourRangeTitle(render::ColourRange(m_rangeBox->itemData(i).toInt())));
        m_rangeBox->setToolTip(tr("Which values the ends of the colour map stand for: 0 and 1, the matrix's smallest "
                                  "and largest, each row's own, or a logarithmic scale"));
        stepLabel->setText(tr("&Step"));
        layerLabel->setText(tr("&Layer"));
        m_layerBox->setToolTip(tr("The layer of the model the heatmap, the steps, the walkthrough and the slides show"));
        m_layerBox->clear();  // its items ("3 of 12") are made again in the new language
        m_headLabel->setText(tr("&Head"));
        colourLabel->setText(tr("&Colours"));
        for (int i = 0; i < m_stepBox->count(); ++i)
            m_stepBox->setItemText(i, stepTitle(core::Step(m_stepBox->itemData(i).toInt())));
        for (int i = 0; i < m_colormapBox->count(); ++i) {
            const int id = m_colormapBox->itemData(i).toInt();
            m_colormapBox->setItemText(i, id < 0 ? tr("Automatic") : colormapTitle(render::ColormapId(id)));
        }
        for (QAction* action : m_stepGroup->actions()) {
            const QString title = stepTitle(core::Step(action->data().toInt()));
            action->setText(title);
            action->setStatusTip(tr("Show %1 in the heatmap").arg(title));
        }
        for (QAction* action : m_colormapGroup->actions()) {
            const int id = action->data().toInt();
            action->setText(id < 0 ? tr("&Automatic (by step)") : colormapTitle(render::ColormapId(id)));
        }
        m_zoomIn->setText(tr("Zoom &In"));
        m_zoomIn->setIconText(tr("+"));
        m_zoomOut->setText(tr("Zoom &Out"));
        m_zoomOut->setIconText(tr("−"));
        m_zoomFit->setText(tr("&Fit to Window"));
        m_zoomFit->setIconText(tr("Fit"));
        m_annotate->setText(tr("Show Cell &Values"));
        m_annotate->setIconText(tr("Values"));
        m_scroll->setAccessibleName(tr("Heatmap"));
        m_annotate->setToolTip(tr("Print each cell's value when the cells are large enough"));
        m_headBox->clear();  // its items ("1 of 2") are made again in the new language
        syncControls();
    });
}

HeatmapWidget::~HeatmapWidget() = default;

void HeatmapWidget::buildActions()
{
    m_stepGroup = new QActionGroup(this);
    int key = Qt::Key_1;
    for (core::Step step : heatmapSteps()) {
        auto* action = new QAction(m_stepGroup);
        action->setCheckable(true);
        action->setData(int(step));
        action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(key++)));
        connect(action, &QAction::triggered, this, [this, step] { m_viewState->setHeatmapStep(step); });
    }

    m_colormapGroup = new QActionGroup(this);
    auto* automatic = new QAction(m_colormapGroup);
    automatic->setData(-1);
    automatic->setShortcut(QKeySequence(Qt::ALT | Qt::Key_0));
    key = Qt::Key_1;
    for (render::ColormapId id : allColormaps()) {
        auto* action = new QAction(m_colormapGroup);
        action->setData(int(id));
        action->setShortcut(QKeySequence(Qt::ALT | Qt::Key(key++)));
    }
    for (QAction* action : m_colormapGroup->actions()) {
        action->setCheckable(true);
        connect(action, &QAction::triggered, this, [this, action] {
            const int id = action->data().toInt();
            setColormapChoice(id < 0 ? std::nullopt : std::optional(render::ColormapId(id)));
        });
    }

    m_zoomIn = new QAction(QIcon::fromTheme(QStringLiteral("zoom-in")), QString(), this);
    m_zoomIn->setShortcuts(QKeySequence::ZoomIn);
    connect(m_zoomIn, &QAction::triggered, this, [this] { zoomBy(zoomStep, QPoint()); });

    m_zoomOut = new QAction(QIcon::fromTheme(QStringLiteral("zoom-out")), QString(), this);
    m_zoomOut->setShortcuts(QKeySequence::ZoomOut);
    connect(m_zoomOut, &QAction::triggered, this, [this] { zoomBy(1.0 / zoomStep, QPoint()); });

    m_zoomFit = new QAction(QIcon::fromTheme(QStringLiteral("zoom-fit-best")), QString(), this);
    m_zoomFit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    m_zoomFit->setCheckable(true);
    m_zoomFit->setChecked(true);
    connect(m_zoomFit, &QAction::triggered, this, [this] { applyZoom(0.0, QPoint()); });

    m_annotate = new QAction(this);
    m_annotate->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N));
    m_annotate->setCheckable(true);
    m_annotate->setChecked(m_canvas->annotate());
    connect(m_annotate, &QAction::toggled, m_canvas, &HeatmapCanvas::setAnnotate);

    addActions(m_stepGroup->actions());
    addActions(m_colormapGroup->actions());
    addActions({m_zoomIn, m_zoomOut, m_zoomFit, m_annotate});
}

QList<QAction*> HeatmapWidget::stepActions() const
{
    return m_stepGroup->actions();
}

QList<QAction*> HeatmapWidget::colormapActions() const
{
    return m_colormapGroup->actions();
}

void HeatmapWidget::syncLayerBox()
{
    const int layers = m_document->layerCount();
    m_layerGroup->setVisible(m_document->isModelSession());
    if (m_layerBox->count() != layers) {
        m_layerBox->clear();
        for (int l = 0; l < layers; ++l)
            m_layerBox->addItem(tr("%1 of %2").arg(l + 1).arg(layers));
    }
    m_layerBox->setCurrentIndex(m_document->shownLayer());
}

void HeatmapWidget::syncControls()
{
    if (m_layerBox->count() != m_document->layerCount())
        syncLayerBox();
    const core::Step step = m_viewState->heatmapStep();
    m_stepBox->setCurrentIndex(m_stepBox->findData(int(step)));
    for (QAction* action : m_stepGroup->actions())
        action->setChecked(action->data().toInt() == int(step));

    const auto trace = m_document->trace();
    const int heads = trace ? trace->headCount() : m_document->model().heads();
    // A head zeroed as a whole (Zero Head) says so in the chooser.
    const ModelSession* model = m_document->modelSession();
    QStringList items;
    for (int h = 0; h < heads; ++h)
        items << (model && model->isAblated(model->shownLayer(), h) ? tr("%1 of %2 (zeroed)") : tr("%1 of %2"))
                     .arg(h + 1)
                     .arg(heads);
    if (m_headBox->count() != heads)
        m_headBox->clear();
    for (int h = 0; h < heads; ++h) {
        if (h >= m_headBox->count())
            m_headBox->addItem(items[h]);
        else if (m_headBox->itemText(h) != items[h])
            m_headBox->setItemText(h, items[h]);
    }
    if (m_viewState->head() >= heads && heads > 0)
        m_viewState->setHead(heads - 1);
    m_headBox->setCurrentIndex(m_viewState->head());
    m_headBox->setEnabled(heads > 1 && core::isPerHead(step));
    m_headLabel->setEnabled(m_headBox->isEnabled());

    const auto choice = m_canvas->colormapChoice();
    const int id = choice ? int(*choice) : -1;
    m_colormapBox->setCurrentIndex(m_colormapBox->findData(id));
    for (QAction* action : m_colormapGroup->actions())
        action->setChecked(action->data().toInt() == id);
    m_colormapBox->setToolTip(tr("Now: %1").arg(colormapTitle(m_canvas->colormap())));

    m_rangeBox->setCurrentIndex(m_rangeBox->findData(int(m_canvas->colourRange())));

    const bool figure = m_canvas->hasFigure();
    for (QAction* action : {m_zoomIn, m_zoomOut, m_zoomFit})
        action->setEnabled(figure);
}

std::optional<render::ColormapId> HeatmapWidget::colormapChoice() const
{
    return m_canvas->colormapChoice();
}

void HeatmapWidget::setColormapChoice(std::optional<render::ColormapId> id)
{
    m_canvas->setColormapChoice(id);
    syncControls();
}

double HeatmapWidget::zoom() const
{
    return m_canvas->zoom();
}

void HeatmapWidget::setZoom(double zoom)
{
    applyZoom(zoom > 0 ? std::clamp(zoom, minZoom, maxZoom) : 0.0, QPoint());
}

bool HeatmapWidget::annotate() const
{
    return m_canvas->annotate();
}

void HeatmapWidget::setAnnotate(bool on)
{
    m_annotate->setChecked(on);
}

render::ColourRange HeatmapWidget::colourRange() const
{
    return m_canvas->colourRange();
}

void HeatmapWidget::setColourRange(render::ColourRange range)
{
    const bool changed = range != m_canvas->colourRange();
    m_canvas->setColourRange(range);
    syncControls();
    if (changed)
        emit colourRangeChanged(range);
}

void HeatmapWidget::zoomBy(double factor, const QPoint& anchor)
{
    if (!m_canvas->hasFigure())
        return;
    applyZoom(std::clamp(m_canvas->effectiveZoom() * factor, minZoom, maxZoom), anchor);
}

void HeatmapWidget::applyZoom(double zoom, const QPoint& anchor)
{
    m_zoomFit->setChecked(zoom <= 0);
    if (zoom <= 0) {
        m_canvas->setZoom(0.0);
        m_scroll->setWidgetResizable(true);
        return;
    }
    const double before = m_canvas->effectiveZoom();
    const QPoint viewportAnchor = anchor.isNull() ? m_scroll->viewport()->rect().center()
                                                  : m_canvas->mapTo(m_scroll->viewport(), anchor);
    const QPoint canvasAnchor = m_canvas->mapFrom(m_scroll->viewport(), viewportAnchor);
    const QSize oldSize = m_canvas->size();

    m_scroll->setWidgetResizable(false);
    m_canvas->setZoom(zoom);
    m_canvas->resize(m_canvas->sizeHint().expandedTo(m_scroll->viewport()->size()));

    // Keep the point under the anchor where it was.
    const double fx = oldSize.width() > 0 ? double(m_canvas->width()) / oldSize.width() : zoom / before;
    const double fy = oldSize.height() > 0 ? double(m_canvas->height()) / oldSize.height() : zoom / before;
    m_scroll->horizontalScrollBar()->setValue(int(canvasAnchor.x() * fx) - viewportAnchor.x());
    m_scroll->verticalScrollBar()->setValue(int(canvasAnchor.y() * fy) - viewportAnchor.y());
}

bool HeatmapWidget::hasFigure() const
{
    return m_canvas->hasFigure();
}

render::HeatmapData HeatmapWidget::figureData() const
{
    m_canvas->finishPreparing();  // what is exported is the current state, also of a long sequence
    Q_ASSERT(m_canvas->renderer());
    return m_canvas->renderer()->data();
}

render::HeatmapStyle HeatmapWidget::figureStyle() const
{
    return m_canvas->exportStyle();
}

}  // namespace ui
