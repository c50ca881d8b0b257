#include "ui/views/shell/mainwindow.h"

#include "ui/views/shell/fileactions.h"
#include "ui/views/heatmap/heatmapcanvas.h"
#include "ui/views/heatmap/heatmapwidget.h"
#include "ui/views/teaching/helpdialogs.h"
#include "ui/views/shell/mainmenus.h"
#include "ui/views/steps/matrixeditor.h"
#include "ui/views/steps/optionspanel.h"
#include "ui/views/model/blockwidget.h"
#include "ui/views/model/instrumentview.h"
#include "ui/views/model/overviewwidget.h"
#include "ui/views/model/headviewwidget.h"
#include "ui/views/model/predictionpanel.h"
#include "ui/views/steps/scalingpanel.h"
#include "ui/views/shell/sessioncontroller.h"
#include "ui/views/steps/stepspanel.h"
#include "ui/views/teaching/teachingview.h"
#include "ui/views/steps/tokenbar.h"
#include "ui/document/document.h"
#include "ui/document/viewstate.h"
#include "ui/i18n/language.h"
#include "ui/render/heatmaprenderer.h"
#include "ui/views/steps/walkthroughpanel.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QGuiApplication>
#include <QLabel>
#include <QResizeEvent>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTimer>
#include <QUndoStack>
#include <QUndoView>

#include <algorithm>

namespace ui {

namespace {

constexpr int layoutVersion = 1;
/** The steps dock's width (pixels) in a window with room for it: formulas on few lines, tables of a few tokens
 *  whole. */
constexpr int stepsDockWidth = 460;

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_document(new Document(this)), m_viewState(new ViewState(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
    const QString iconPath = QStringLiteral(":/icons/attention-explorer.svg");
    setWindowIcon(QFile::exists(iconPath) ? QIcon(iconPath) : QIcon::fromTheme(QStringLiteral("attention-explorer")));

    m_session = new SessionController(m_document, m_viewState, this, [this] { return dialogParent(); });
    m_heatmap = new HeatmapWidget(m_document, m_viewState);
    setCentralWidget(m_heatmap);
    createDocks();
    m_files = new FileActions(m_document, m_viewState, m_heatmap, m_matrices, m_session, this);
    m_files->setFigureViews(m_overview, m_headView);
    QList<QDockWidget*> docks;
    for (const TitledDock& dock : m_docks)
        docks << dock.dock;
    m_menus = new MainMenus(this, m_document, m_heatmap, m_session, m_files, docks,
                            {[this] { startTeaching(); },
                             [this] {
                                 m_scalingDock->show();
                                 m_scalingDock->raise();
                             },
                             [this] { restoreState(m_defaultState, layoutVersion); }});
    m_menus->help()->setModelSessionQuery([this] { return m_document->isModelSession(); });
    m_menus->help()->setPresetOpener([this](const QString& name) { m_session->choosePreset(name); });
    m_computing = new QLabel;
    m_computing->setObjectName(QStringLiteral("computingLabel"));
    m_computing->hide();
    m_dimensions = new QLabel;
    m_dimensions->setObjectName(QStringLiteral("dimensionsLabel"));
    m_dimensions->setContentsMargins(8, 0, 8, 0);
    statusBar()->addPermanentWidget(m_computing);
    statusBar()->addPermanentWidget(m_dimensions);
    i18n::onLanguageChange(this, [this] { retranslate(); });

    connect(m_session, &SessionController::titleChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::modifiedChanged, this, &MainWindow::setWindowModified);
    connect(m_document, &Document::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::modelChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::modelChanged, this, &MainWindow::updateStatus);
    connect(m_document, &Document::traceChanged, this, &MainWindow::updateStatus);
    connect(m_document, &Document::errorChanged, this, &MainWindow::updateStatus);
    connect(m_document, &Document::predictionChanged, this, &MainWindow::updateStatus);
    connect(m_document, &Document::shownLayerChanged, this, &MainWindow::updateStatus);
    connect(m_document, &Document::message, this, [this](const QString& text) { statusBar()->showMessage(text, 6000); });
    connect(m_heatmap->canvas(), &HeatmapCanvas::figureChanged, this, &MainWindow::noteLogScale);
    connect(m_heatmap->canvas(), &HeatmapCanvas::figureFailed, this,
            [this](const QString& text) { statusBar()->showMessage(text, 10000); });
    connect(m_document->undoStack(), &QUndoStack::indexChanged, this, [this](int index) {
        const QUndoStack* stack = m_document->undoStack();
        // The same index again: the newest step took another in (a cell edited twice), and its text changed.
        if (index >= m_undoIndex && !stack->undoText().isEmpty())
            statusBar()->showMessage(stack->undoText(), 6000);
        else if (index < m_undoIndex && !stack->redoText().isEmpty())
            statusBar()->showMessage(tr("Undone: %1").arg(stack->redoText()), 6000);
        m_undoIndex = index;
    });

    // Never larger than the screen: on a projector's 1024 × 640 the window must fit as it opens, title bar and
    // all. A screen smaller than the window wants gets it maximized, which the window manager fits frame and all.
    const QSize wanted(1440, 900);
    const QSize available = screen() ? screen()->availableSize() : wanted;
    resize(wanted.boundedTo(available));
    // The heatmap is what a room looks at: the tables below it take a quarter of the height, not half, and the
    // steps beside it three tenths of a narrow window's width.
    resizeDocks({m_matricesDock}, {std::max(150, height() / 4)}, Qt::Vertical);
    if (QDockWidget* steps = findChild<QDockWidget*>(QStringLiteral("stepsDock")))
        resizeDocks({steps}, {std::min(stepsDockWidth, width() * 3 / 10)}, Qt::Horizontal);
    m_defaultState = saveState(layoutVersion);
    if (!readSettings() && fitsScreens() && (available.width() < wanted.width() || available.height() < wanted.height()))
        setWindowState(windowState() | Qt::WindowMaximized);
    updateTitle();
    updateStatus();
}

MainWindow::~MainWindow()
{
    // The session's autosave looks at the document when it goes, so it goes first.
    delete m_session;
    m_session = nullptr;
    // The document outlives this class's destructor and its undo stack still signals while it goes
    // (cleanChanged → Document::modifiedChanged): neither may reach this half-destroyed window.
    disconnect(m_document->undoStack(), nullptr, this, nullptr);
    disconnect(m_document, nullptr, this, nullptr);
}

bool MainWindow::openFile(const QString& path, QString* error) { return m_session->openFile(path, error); }
bool MainWindow::saveFile(const QString& path, QString* error) { return m_session->saveFile(path, error); }
bool MainWindow::loadPreset(const QString& name) { return m_session->loadPreset(name); }
QStringList MainWindow::recentFiles() const { return m_session->recentFiles(); }
bool MainWindow::maybeSave() { return m_session->maybeSave(); }
Autosave* MainWindow::autosave() const { return m_session->autosave(); }
bool MainWindow::offerRecovery() { return m_session->offerRecovery(); }
HelpDialogs* MainWindow::help() const { return m_menus->help(); }
bool MainWindow::showQuickStartIfFirst() { return m_menus->help()->showQuickStartIfFirst(); }
QSize MainWindow::heatmapPreferredSize() const { return m_files->heatmapPreferredSize(); }

render::ExportResult MainWindow::exportHeatmap(const QString& path, QSize pixelSize)
{
    return m_files->exportHeatmap(path, pixelSize);
}

QDockWidget* MainWindow::addDock(QWidget* content, const char* title, const QString& name, Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(this);
    dock->setObjectName(name);
    dock->setWidget(content);
    dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(area, dock);
    m_docks.push_back({dock, title});
    return dock;
}

void MainWindow::createDocks()
{
    m_tokenBar = new TokenBar(m_document, m_viewState);
    m_options = new OptionsPanel(m_document);
    QDockWidget* tokens = addDock(m_tokenBar, QT_TR_NOOP("Tokens"), QStringLiteral("tokensDock"), Qt::LeftDockWidgetArea);
    QDockWidget* options = addDock(m_options, QT_TR_NOOP("Options"), QStringLiteral("optionsDock"), Qt::LeftDockWidgetArea);
    splitDockWidget(tokens, options, Qt::Vertical);

    QDockWidget* stepsDock = addDock(new StepsPanel(m_document, m_viewState), QT_TR_NOOP("Steps"),
                                     QStringLiteral("stepsDock"), Qt::RightDockWidgetArea);
    QDockWidget* walkDock = addDock(new WalkthroughPanel(m_document, m_viewState), QT_TR_NOOP("Walkthrough"),
                                    QStringLiteral("walkthroughDock"), Qt::RightDockWidgetArea);
    tabifyDockWidget(stepsDock, walkDock);
    m_matrices = new MatrixEditorPanel(m_document, m_viewState);
    m_matricesDock = addDock(m_matrices, QT_TR_NOOP("Matrices"), QStringLiteral("matricesDock"), Qt::BottomDockWidgetArea);

    // A model session's next token, beside the steps; a plain session's panel says how to open a model.
    m_prediction = new PredictionPanel(m_document);
    // Below the options, which a model session reduces to a note; hidden until a model is opened.
    QDockWidget* predictionDock = addDock(m_prediction, QT_TR_NOOP("Next Token"), QStringLiteral("predictionDock"),
                                          Qt::LeftDockWidgetArea);
    splitDockWidget(options, predictionDock, Qt::Vertical);
    predictionDock->hide();
    connect(m_document, &Document::modelChanged, this, [this, predictionDock](const ModelChange& change) {
        if (change.kind != ModelChange::Kind::Model || m_document->isModelSession() == m_showedModel)
            return;
        m_showedModel = m_document->isModelSession();
        if (!m_showedModel) {  // back to a plain session: the panel would only say how to open a model
            predictionDock->hide();
            return;
        }
        // A model was opened: its prediction is what to watch.
        predictionDock->show();
        predictionDock->raise();
        // The options are a note now: the chips and the candidates get the room (once the window has its size).
        QTimer::singleShot(0, this, [this, predictionDock] {
            const int h = std::max(400, height() - 120);
            resizeDocks({m_docks[0].dock, m_docks[1].dock, predictionDock}, {h * 30 / 100, h * 22 / 100, h * 48 / 100},
                        Qt::Vertical);
            growDocks();
        });
    });

    m_history = new QUndoView(m_document->undoStack());
    QDockWidget* historyDock = addDock(m_history, QT_TR_NOOP("History"), QStringLiteral("historyDock"), Qt::RightDockWidgetArea);
    tabifyDockWidget(walkDock, historyDock);
    historyDock->hide();
    m_scalingDock = addDock(new ScalingPanel, QT_TR_NOOP("Why √d_k?"), QStringLiteral("scalingDock"), Qt::RightDockWidgetArea);
    tabifyDockWidget(historyDock, m_scalingDock);
    m_scalingDock->hide();

    m_overview = new OverviewWidget(m_document);
    m_overviewDock = addDock(m_overview, QT_TR_NOOP("Overview"), QStringLiteral("overviewDock"), Qt::RightDockWidgetArea);
    tabifyDockWidget(walkDock, m_overviewDock);
    connect(m_overview, &OverviewWidget::cellChosen, this, &MainWindow::showFromOverview);
    // A model session's grid is every layer of its latest pass, which the document keeps; a plain session's
    // is the trace's heads.
    connect(m_document, &Document::predictionChanged, m_overview, [this] {
        if (!m_document->isModelSession()) {
            if (!m_overviewFollowsTrace) {
                m_overviewFollowsTrace = true;
                m_overview->setGridSource({});
            }
            return;
        }
        m_overviewFollowsTrace = false;
        m_overview->setGridSource([this]() -> OverviewWidget::GridJob {
            const ModelSession* model = m_document->modelSession();
            std::shared_ptr<const render::AttentionGrid> grid = model ? model->grid() : nullptr;
            if (!grid)
                return {};
            return [grid] { return grid; };
        });
    });
    connect(m_document, &Document::shownLayerChanged, m_overview,
            [this](int layer) { m_overview->setCurrent(layer, m_viewState->head()); });
    connect(m_viewState, &ViewState::headChanged, m_overview,
            [this](int head) { m_overview->setCurrent(m_document->shownLayer(), head); });
    m_overview->setCurrent(0, m_viewState->head());
    connect(m_heatmap, &HeatmapWidget::colourRangeChanged, m_overview, &OverviewWidget::setColourRange);
    m_headView = new HeadViewWidget;
    QDockWidget* headViewDock = addDock(m_headView, QT_TR_NOOP("Head View"), QStringLiteral("headViewDock"),
                                        Qt::RightDockWidgetArea);
    tabifyDockWidget(m_overviewDock, headViewDock);
    connect(m_overview, &OverviewWidget::gridChanged, m_headView, &HeadViewWidget::setGrid);
    // The head view shows the shown layer (and head) as the heatmap does, until the user picks another in it.
    connect(m_document, &Document::shownLayerChanged, m_headView,
            [this](int layer) { m_headView->followShown(layer, m_viewState->head()); });
    connect(m_viewState, &ViewState::headChanged, m_headView,
            [this](int head) { m_headView->followShown(m_document->shownLayer(), head); });
    m_overview->addViewer(m_headView);
    // The shown layer's whole block at the selected query, a tab beside them: computed only while it is shown.
    QDockWidget* blockDock = addDock(new BlockWidget(m_document, m_viewState), QT_TR_NOOP("Block View"),
                                     QStringLiteral("blockDock"), Qt::RightDockWidgetArea);
    tabifyDockWidget(headViewDock, blockDock);
    headViewDock->raise();
    // The instruments: hidden until the View menu shows them (a hidden view costs the passes nothing).
    QDockWidget* previous = blockDock;
    for (const Instrument which : {Instrument::Lens, Instrument::Attribution}) {
        const bool lens = which == Instrument::Lens;
        auto* view = new InstrumentView(m_document, which);
        QDockWidget* dock = addDock(view, lens ? QT_TR_NOOP("Logit Lens") : QT_TR_NOOP("Attribution"),
                                    lens ? QStringLiteral("lensDock") : QStringLiteral("attributionDock"),
                                    Qt::RightDockWidgetArea);
        tabifyDockWidget(previous, dock);
        dock->hide();
        connect(dock->toggleViewAction(), &QAction::triggered, dock, [dock](bool on) {
            if (on)
                dock->raise();
        });
        connect(view, &InstrumentView::cellChosen, this,
                [this](int layer, int head) { showFromOverview(layer, head < 0 ? m_viewState->head() : head); });
        previous = dock;
    }
    stepsDock->raise();

    resizeDocks({tokens, options}, {170, 530}, Qt::Vertical);
    resizeDocks({tokens}, {320}, Qt::Horizontal);
    resizeDocks({stepsDock}, {stepsDockWidth}, Qt::Horizontal);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
}

void MainWindow::showFromOverview(int layer, int head)
{
    if (m_document->isModelSession() && layer != m_document->shownLayer())
        m_document->setShownLayer(layer);
    m_viewState->setHead(head);
    m_headView->showHead(layer, head);
}

void MainWindow::retranslate()
{
    for (const TitledDock& dock : m_docks)
        dock.dock->setWindowTitle(tr(dock.title));
    m_history->setEmptyLabel(tr("<opened>"));
    m_computing->setText(tr("Computing…"));
    updateTitle();
    updateStatus();
}

bool MainWindow::readSettings()
{
    QSettings settings;
    settings.beginGroup(QStringLiteral("window"));
    const QByteArray geometry = settings.value(QStringLiteral("geometry")).toByteArray();
    const bool restored = !geometry.isEmpty() && restoreGeometry(geometry);
    restoreState(settings.value(QStringLiteral("state")).toByteArray(), layoutVersion);
    settings.endGroup();

    settings.beginGroup(QStringLiteral("heatmap"));
    m_heatmap->setColormapChoice(render::colormapFromName(settings.value(QStringLiteral("colormap")).toString()));
    m_heatmap->setColourRange(render::colourRangeFromName(settings.value(QStringLiteral("colourRange")).toString())
                                  .value_or(render::ColourRange::Fixed));
    m_heatmap->setAnnotate(settings.value(QStringLiteral("annotate"), true).toBool());
    const auto step = core::stepFromKey(settings.value(QStringLiteral("step")).toString().toStdString());
    if (step && HeatmapWidget::heatmapSteps().contains(*step))
        m_viewState->setHeatmapStep(*step);
    settings.endGroup();
    return restored;
}

void MainWindow::writeSettings() const
{
    QSettings settings;
    settings.beginGroup(QStringLiteral("window"));
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("state"), saveState(layoutVersion));
    settings.endGroup();
    settings.beginGroup(QStringLiteral("heatmap"));
    const auto colormap = m_heatmap->colormapChoice();
    settings.setValue(QStringLiteral("colormap"), colormap ? render::colormapName(*colormap) : QString());
    settings.setValue(QStringLiteral("colourRange"), render::colourRangeName(m_heatmap->colourRange()));
    settings.setValue(QStringLiteral("annotate"), m_heatmap->annotate());
    settings.setValue(QStringLiteral("step"), QString::fromLatin1(core::stepKey(m_viewState->heatmapStep())));
    settings.endGroup();
}

bool MainWindow::fitsScreens()
{
    // The offscreen platform's screen is a nominal 800 × 600 on which windows of any size are drawn.
    return QGuiApplication::platformName() != QLatin1String("offscreen");
}

void MainWindow::fitScreen()
{
    const QScreen* shown = screen();
    if (!shown || !fitsScreens() || !isVisible() || (windowState() & (Qt::WindowMaximized | Qt::WindowFullScreen)))
        return;
    const QRect available = shown->availableGeometry();
    const QRect frame = frameGeometry(), inside = geometry();
    const QMargins margins(inside.left() - frame.left(), inside.top() - frame.top(), frame.right() - inside.right(),
                           frame.bottom() - inside.bottom());
    if (frame.width() <= available.width() && frame.height() <= available.height())
        return;  // it fits; where it stands is the person's choice
    const QSize size = this->size().boundedTo(available.size().shrunkBy(margins));
    resize(size);
    QRect placed(frame.topLeft(), size.grownBy(margins));
    placed.moveLeft(std::clamp(placed.left(), available.left(), available.right() + 1 - placed.width()));
    placed.moveTop(std::clamp(placed.top(), available.top(), available.bottom() + 1 - placed.height()));
    move(placed.topLeft());
}

bool MainWindow::event(QEvent* event)
{
    // The frame the window manager adds comes after the window is shown, with a move or a resize.
    if (event->type() == QEvent::Show || event->type() == QEvent::Move || event->type() == QEvent::Resize)
        QTimer::singleShot(0, this, &MainWindow::fitScreen);
    return QMainWindow::event(event);
}

QWidget* MainWindow::dialogParent()
{
    // A box parented to this window would open behind the full-screen slides, out of sight.
    if (m_teaching && m_teaching->isVisible())
        return m_teaching;
    return this;
}

void MainWindow::updateTitle()
{
    setWindowTitle(m_session->windowTitle());
    setWindowModified(m_document->isModified());
}

void MainWindow::noteLogScale()
{
    // Counted where the figure's colour scale was found; a figure still being prepared says so when it is shown.
    const render::HeatmapRenderer* renderer = m_heatmap->canvas()->renderer();
    const qint64 cells = renderer ? renderer->colourScale().belowLogScale() : 0;
    if (cells != m_cellsBelowLogScale && cells > 0)
        statusBar()->showMessage(render::logScaleNote(cells), 10000);
    m_cellsBelowLogScale = cells;
}

void MainWindow::updateStatus()
{
    const core::AttentionModel& m = m_document->model();
    QString dimensions =
        tr("n %1 · d_model %2 · d_k %3 · d_v %4 · heads %5").arg(m.n()).arg(m.dModel()).arg(m.dK()).arg(m.dV()).arg(m.heads());
    if (m.origin)
        dimensions = tr("%1 · layer %2 of %3 · %4")
                         .arg(QString::fromStdString(m.origin->model))
                         .arg(m.origin->layer)
                         .arg(m.origin->layers)
                         .arg(dimensions);
    // Set once, and only when it changed: each new text laid the status bar out again, twice.
    if (m_dimensions->text() != dimensions)
        m_dimensions->setText(dimensions);
    m_computing->setVisible(m_document->isComputing() || (m_document->modelSession() && m_document->modelSession()->isRunning()));
    m_menus->setFigureAvailable(m_heatmap->hasFigure());
    if (!m_document->error().isEmpty())
        statusBar()->showMessage(m_document->error());
}

void MainWindow::growDocks()
{
    QList<QDockWidget*> docks;
    QList<int> widths;
    const auto grow = [&](const QString& name, int wanted) {
        auto* dock = findChild<QDockWidget*>(name);
        if (dock && dock->isVisible() && !dock->isFloating() && dock->width() < wanted) {
            docks << dock;
            widths << wanted;
        }
    };
    grow(QStringLiteral("stepsDock"), std::min(stepsDockWidth, width() / 4));
    if (m_showedModel)
        grow(QStringLiteral("predictionDock"), std::min(m_prediction->preferredWidth(), width() * 3 / 10));
    if (!docks.isEmpty())
        resizeDocks(docks, widths, Qt::Horizontal);
}

void MainWindow::resizeEvent(QResizeEvent* event)
{
    QMainWindow::resizeEvent(event);
    // A window made wider gives its docks the room they want first (a narrower one leaves the docks as the
    // person set them).
    if (event->oldSize().isValid() && event->size().width() > event->oldSize().width())
        QTimer::singleShot(0, this, &MainWindow::growDocks);
}

void MainWindow::childEvent(QChildEvent* event)
{
    // The tabs of docks sharing an area (the window makes their bars as docks are tabbed) show their whole
    // titles and scroll when they do not fit, instead of shrinking to "S…", "Walkt…".
    if (event->type() == QEvent::ChildPolished) {
        if (auto* bar = qobject_cast<QTabBar*>(event->child())) {
            bar->setElideMode(Qt::ElideNone);
            bar->setUsesScrollButtons(true);
        }
    }
    QMainWindow::childEvent(event);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!m_session->closing()) {
        event->ignore();
        return;
    }
    writeSettings();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (!SessionController::localFileOf(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QString path = SessionController::localFileOf(event->mimeData());
    if (path.isEmpty())
        return;
    event->acceptProposedAction();
    m_session->openInteractively(path);
}

void MainWindow::startTeaching()
{
    if (!m_teaching) {
        m_teaching = new TeachingView(m_document, m_viewState, this);
        m_teaching->setWindowFlag(Qt::Window);
        // The teacher can quit from the slides; the main window still asks about unsaved changes.
        m_teaching->addActions(m_menus->sharedActions());
        connect(m_teaching, &TeachingView::leaveRequested, m_teaching, &QWidget::close);
    }
    m_teaching->setSlide(0);
    m_teaching->showFullScreen();
    m_teaching->activateWindow();
    m_teaching->setFocus();
}

}  // namespace ui
