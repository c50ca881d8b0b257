#include "mainwindow.h"

#include "core/presets.h"
#include "heatmapcanvas.h"
#include "heatmapwidget.h"
#include "optionspanel.h"
#include "tokenbar.h"
#include "ui/document/autosave.h"
#include "ui/document/document.h"
#include "ui/document/stepfigure.h"
#include "ui/document/viewstate.h"
#include "ui/render/heatmapexport.h"
#include "ui/render/heatmaprenderer.h"

#include "core/pytorchexport.h"
#include "ui/export/exportfiles.h"
#include "ui/export/reportwriter.h"
#include "ui/i18n/language.h"
#include "ui/views/matrixeditor.h"
#include "ui/views/scalingpanel.h"
#include "ui/views/stepspanel.h"
#include "ui/views/teachingview.h"
#include "ui/views/walkthroughpanel.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QUndoStack>
#include <QUndoView>

#include <cmath>

#include <iterator>

namespace ui {

namespace {

constexpr int maxRecentFiles = 8;
constexpr int layoutVersion = 1;

QString sessionFilter()
{
    return MainWindow::tr("Attention Explorer sessions (*.json);;All files (*)");
}

QString localFileOf(const QMimeData* mime)
{
    if (!mime || !mime->hasUrls())
        return {};
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile())
            return url.toLocalFile();
    return {};
}

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

    m_heatmap = new HeatmapWidget(m_document, m_viewState);
    setCentralWidget(m_heatmap);
    createDocks();
    createActions();
    createMenus();
    createStatusBar();
    i18n::onLanguageChange(this, [this] { retranslate(); });

    connect(m_document, &Document::modifiedChanged, this, [this](bool modified) {
        if (!modified && m_recovered) {
            m_recovered = false;  // saved, or replaced by another session
            updateTitle();
        }
        setWindowModified(modified);
    });
    connect(m_document, &Document::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::modelChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::modelChanged, this, &MainWindow::updateStatus);
    connect(m_document, &Document::traceChanged, this, &MainWindow::updateStatus);
    connect(m_document, &Document::errorChanged, this, &MainWindow::updateStatus);
    connect(m_document, &Document::message, this, [this](const QString& text) { statusBar()->showMessage(text, 6000); });
    connect(m_heatmap->canvas(), &HeatmapCanvas::figureFailed, this,
            [this](const QString& text) { statusBar()->showMessage(text, 10000); });
    connect(m_document->undoStack(), &QUndoStack::indexChanged, this, [this](int index) {
        const QUndoStack* stack = m_document->undoStack();
        if (index > m_undoIndex && !stack->undoText().isEmpty())
            statusBar()->showMessage(stack->undoText(), 6000);
        else if (index < m_undoIndex && !stack->redoText().isEmpty())
            statusBar()->showMessage(tr("Undone: %1").arg(stack->redoText()), 6000);
        m_undoIndex = index;
    });

    m_autosave = new Autosave(m_document, Autosave::defaultFolder(), Autosave::defaultIntervalMs, this);
    connect(m_autosave, &Autosave::failed, this, [this](const QString& message) {
        statusBar()->showMessage(message);
        showError(tr("Autosave failed"), message);
    });

    resize(1440, 900);
    m_defaultState = saveState(layoutVersion);
    readSettings();
    updateTitle();
    updateStatus();
}

MainWindow::~MainWindow()
{
    // The autosave looks at the document when it goes, so it goes first.
    delete m_autosave;
    m_autosave = nullptr;
    // The document outlives this class's destructor and its undo stack still signals while it goes
    // (cleanChanged → Document::modifiedChanged): neither may reach this half-destroyed window.
    disconnect(m_document->undoStack(), nullptr, this, nullptr);
    disconnect(m_document, nullptr, this, nullptr);
}

QDockWidget* MainWindow::addDock(QWidget* content, const QString& title, const QString& name, Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);
    dock->setWidget(content);
    dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable
                      | QDockWidget::DockWidgetFloatable);
    addDockWidget(area, dock);
    m_docks << dock;
    return dock;
}

void MainWindow::createDocks()
{
    m_tokenBar = new TokenBar(m_document, m_viewState);
    m_options = new OptionsPanel(m_document);
    QDockWidget* tokens = addDock(m_tokenBar, QString(), QStringLiteral("tokensDock"), Qt::LeftDockWidgetArea);
    QDockWidget* options = addDock(m_options, QString(), QStringLiteral("optionsDock"), Qt::LeftDockWidgetArea);
    splitDockWidget(tokens, options, Qt::Vertical);

    QWidget* steps = new StepsPanel(m_document, m_viewState);
    QWidget* walkthrough = new WalkthroughPanel(m_document, m_viewState);
    m_matrices = new MatrixEditorPanel(m_document, m_viewState);
    QWidget* matrices = m_matrices;
    QDockWidget* stepsDock = addDock(steps, QString(), QStringLiteral("stepsDock"), Qt::RightDockWidgetArea);
    QDockWidget* walkDock = addDock(walkthrough, QString(), QStringLiteral("walkthroughDock"),
                                    Qt::RightDockWidgetArea);
    tabifyDockWidget(stepsDock, walkDock);
    addDock(matrices, QString(), QStringLiteral("matricesDock"), Qt::BottomDockWidgetArea);

    auto* history = new QUndoView(m_document->undoStack());
    m_history = history;
    QDockWidget* historyDock = addDock(history, QString(), QStringLiteral("historyDock"), Qt::RightDockWidgetArea);
    tabifyDockWidget(walkDock, historyDock);
    historyDock->hide();
    m_scalingDock = addDock(new ScalingPanel, QString(), QStringLiteral("scalingDock"), Qt::RightDockWidgetArea);
    tabifyDockWidget(historyDock, m_scalingDock);
    m_scalingDock->hide();
    stepsDock->raise();

    resizeDocks({tokens, options}, {170, 530}, Qt::Vertical);
    resizeDocks({tokens}, {320}, Qt::Horizontal);
    resizeDocks({stepsDock}, {460}, Qt::Horizontal);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
}

void MainWindow::createActions()
{
    m_newAction = new QAction(QIcon::fromTheme(QStringLiteral("document-new")), QString(), this);
    m_newAction->setShortcuts(QKeySequence::New);
    connect(m_newAction, &QAction::triggered, this, &MainWindow::newSession);

    m_openAction = new QAction(QIcon::fromTheme(QStringLiteral("document-open")), QString(), this);
    m_openAction->setShortcuts(QKeySequence::Open);
    connect(m_openAction, &QAction::triggered, this, &MainWindow::openDialog);

    m_saveAction = new QAction(QIcon::fromTheme(QStringLiteral("document-save")), QString(), this);
    m_saveAction->setShortcuts(QKeySequence::Save);
    connect(m_saveAction, &QAction::triggered, this, &MainWindow::save);

    m_saveAsAction = new QAction(QIcon::fromTheme(QStringLiteral("document-save-as")), QString(), this);
    m_saveAsAction->setShortcuts(QKeySequence::SaveAs);
    connect(m_saveAsAction, &QAction::triggered, this, &MainWindow::saveAs);

    m_exportAction = new QAction(QIcon::fromTheme(QStringLiteral("document-export")), QString(), this);
    m_exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(m_exportAction, &QAction::triggered, this, &MainWindow::exportDialog);

    m_copyAction = new QAction(QIcon::fromTheme(QStringLiteral("edit-copy")), QString(), this);
    m_copyAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    connect(m_copyAction, &QAction::triggered, this, &MainWindow::copyHeatmap);

    m_quitAction = new QAction(QIcon::fromTheme(QStringLiteral("application-exit")), QString(), this);
    // Platforms without a standard quit key (Windows, a bare X server) still get Ctrl+Q.
    m_quitAction->setShortcuts(QKeySequence::keyBindings(QKeySequence::Quit).isEmpty()
                                   ? QList<QKeySequence>{QKeySequence(Qt::CTRL | Qt::Key_Q)}
                                   : QKeySequence::keyBindings(QKeySequence::Quit));
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    // Our own undo and redo actions, not QUndoStack's, so that their texts follow a change of language.
    QUndoStack* stack = m_document->undoStack();
    m_undoAction = new QAction(QIcon::fromTheme(QStringLiteral("edit-undo")), QString(), this);
    m_undoAction->setShortcuts(QKeySequence::Undo);
    m_undoAction->setEnabled(stack->canUndo());
    connect(m_undoAction, &QAction::triggered, stack, &QUndoStack::undo);
    connect(stack, &QUndoStack::canUndoChanged, m_undoAction, &QAction::setEnabled);
    connect(stack, &QUndoStack::undoTextChanged, this, &MainWindow::updateUndoTexts);
    m_redoAction = new QAction(QIcon::fromTheme(QStringLiteral("edit-redo")), QString(), this);
    m_redoAction->setShortcuts(QKeySequence::Redo);
    m_redoAction->setEnabled(stack->canRedo());
    connect(m_redoAction, &QAction::triggered, stack, &QUndoStack::redo);
    connect(stack, &QUndoStack::canRedoChanged, m_redoAction, &QAction::setEnabled);
    connect(stack, &QUndoStack::redoTextChanged, this, &MainWindow::updateUndoTexts);

    m_fullScreenAction = new QAction(QIcon::fromTheme(QStringLiteral("view-fullscreen")), QString(), this);
    m_fullScreenAction->setShortcuts(QKeySequence::FullScreen);
    m_fullScreenAction->setCheckable(true);
    connect(m_fullScreenAction, &QAction::toggled, this, &MainWindow::toggleFullScreen);

    m_teachingAction = new QAction(QIcon::fromTheme(QStringLiteral("x-office-presentation")), QString(), this);
    m_teachingAction->setShortcut(QKeySequence(Qt::Key_F5));
    connect(m_teachingAction, &QAction::triggered, this, &MainWindow::startTeaching);

    m_scalingAction = new QAction(this);
    m_scalingAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    connect(m_scalingAction, &QAction::triggered, this, [this] {
        m_scalingDock->show();
        m_scalingDock->raise();
    });

    m_exportReportAction = new QAction(this);
    m_exportReportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    connect(m_exportReportAction, &QAction::triggered, this, &MainWindow::exportReportDialog);

    m_exportStepsAction = new QAction(this);
    m_exportStepsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    connect(m_exportStepsAction, &QAction::triggered, this, &MainWindow::exportStepsDialog);

    m_exportCodeAction = new QAction(this);
    m_exportCodeAction->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_E));
    connect(m_exportCodeAction, &QAction::triggered, this, &MainWindow::exportCodeDialog);

    m_copyCodeAction = new QAction(this);
    m_copyCodeAction->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_C));
    connect(m_copyCodeAction, &QAction::triggered, this, &MainWindow::copyCode);

    m_importMatrixAction = new QAction(this);
    m_importMatrixAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    connect(m_importMatrixAction, &QAction::triggered, this, &MainWindow::importMatrixDialog);

    m_exportMatrixAction = new QAction(this);
    m_exportMatrixAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I));
    connect(m_exportMatrixAction, &QAction::triggered, this, &MainWindow::exportMatrixDialog);

    m_resetLayoutAction = new QAction(this);
    m_resetLayoutAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    connect(m_resetLayoutAction, &QAction::triggered, this, &MainWindow::resetLayout);

    m_aboutAction = new QAction(QIcon::fromTheme(QStringLiteral("help-about")), QString(), this);
    m_aboutAction->setShortcuts(QKeySequence::HelpContents);
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::about);
    m_aboutQtAction = new QAction(this);
    m_aboutQtAction->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F1));
    m_aboutQtAction->setMenuRole(QAction::AboutQtRole);
    connect(m_aboutQtAction, &QAction::triggered, qApp, &QApplication::aboutQt);

    int key = Qt::Key_1;
    for (const core::PresetInfo& info : core::presetList()) {
        const QString name = QString::fromStdString(info.name);
        auto* action = new QAction(name, this);
        action->setStatusTip(QString::fromStdString(info.description));
        action->setToolTip(QString::fromStdString(info.description));
        action->setData(name);
        if (key <= Qt::Key_9)
            action->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key(key++)));
        connect(action, &QAction::triggered, this, [this, name] {
            if (maybeSave())
                loadPreset(name);
        });
        m_presetActions << action;
    }
}

void MainWindow::retranslate()
{
    m_newAction->setText(tr("&New"));
    m_openAction->setText(tr("&Open…"));
    m_saveAction->setText(tr("&Save"));
    m_saveAsAction->setText(tr("Save &As…"));
    m_exportAction->setText(tr("&Export Heatmap…"));
    m_copyAction->setText(tr("&Copy Heatmap Image"));
    m_quitAction->setText(tr("&Quit"));
    m_fullScreenAction->setText(tr("&Full Screen"));
    m_teachingAction->setText(tr("&Teaching Mode"));
    m_scalingAction->setText(tr("&Why Divide by √d_k?"));
    m_exportReportAction->setText(tr("Export &Report (PDF)…"));
    m_exportStepsAction->setText(tr("Export Step &Matrices…"));
    m_exportCodeAction->setText(tr("Export &PyTorch Code…"));
    m_copyCodeAction->setText(tr("Copy as PyTorch &Code"));
    m_importMatrixAction->setText(tr("&Import Matrix…"));
    m_exportMatrixAction->setText(tr("Export Mat&rix…"));
    m_resetLayoutAction->setText(tr("&Reset Layout"));
    m_aboutAction->setText(tr("&About Attention Explorer"));
    m_aboutQtAction->setText(tr("About &Qt"));
    m_newAction->setStatusTip(tr("Start again from the worked example"));
    m_openAction->setStatusTip(tr("Open a session file"));
    m_exportAction->setStatusTip(tr("Write the heatmap as shown to a PNG, SVG or PDF file"));
    m_copyAction->setStatusTip(tr("Copy the heatmap to the clipboard as an image"));
    m_teachingAction->setStatusTip(tr("Step through the seven steps full screen, one per slide"));
    m_exportReportAction->setStatusTip(tr("A handout: one page per step with its formula, matrix and explanation"));
    m_exportStepsAction->setStatusTip(tr("One CSV file per step and head, and the whole computation as JSON, into a folder"));
    m_copyCodeAction->setStatusTip(tr("Python that reproduces every step of this session with torch"));
    m_importMatrixAction->setStatusTip(tr("Replace the matrix of the current editor tab with one from a .npy or .csv file"));
    m_exportMatrixAction->setStatusTip(tr("Write the matrix of the current editor tab as .npy or .csv"));
    updateUndoTexts();

    m_fileMenu->setTitle(tr("&File"));
    m_recentMenu->setTitle(tr("Open &Recent"));
    m_editMenu->setTitle(tr("&Edit"));
    m_viewMenu->setTitle(tr("&View"));
    m_stepMenu->setTitle(tr("Heatmap &Step"));
    m_colourMenu->setTitle(tr("&Colour Map"));
    m_panelsMenu->setTitle(tr("&Panels"));
    m_languageMenu->setTitle(tr("&Language"));
    m_presetsMenu->setTitle(tr("&Presets"));
    m_helpMenu->setTitle(tr("&Help"));
    for (QAction* action : m_languageMenu->actions())
        action->setChecked(action->data().toString() == i18n::currentLanguage());

    const QString titles[] = {tr("Tokens"), tr("Options"), tr("Steps"), tr("Walkthrough"),
                              tr("Matrices"), tr("History"), tr("Why √d_k?")};
    for (int i = 0; i < m_docks.size() && i < int(std::size(titles)); ++i)
        m_docks[i]->setWindowTitle(titles[i]);
    m_history->setEmptyLabel(tr("<opened>"));
    m_computing->setText(tr("Computing…"));
    if (m_teaching)
        m_teaching->setWindowTitle(tr("Attention Explorer — Teaching Mode"));
    updateTitle();
    updateStatus();
}

void MainWindow::updateUndoTexts()
{
    const QUndoStack* stack = m_document->undoStack();
    m_undoAction->setText(stack->undoText().isEmpty() ? tr("&Undo") : tr("&Undo %1").arg(stack->undoText()));
    m_redoAction->setText(stack->redoText().isEmpty() ? tr("&Redo") : tr("&Redo %1").arg(stack->redoText()));
}

void MainWindow::createMenus()
{
    QMenu* file = m_fileMenu = menuBar()->addMenu(QString());
    file->addAction(m_newAction);
    file->addAction(m_openAction);
    m_recentMenu = file->addMenu(QIcon::fromTheme(QStringLiteral("document-open-recent")), QString());
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::updateRecentMenu);
    file->addSeparator();
    file->addAction(m_saveAction);
    file->addAction(m_saveAsAction);
    file->addSeparator();
    file->addAction(m_exportAction);
    file->addAction(m_copyAction);
    file->addAction(m_exportReportAction);
    file->addAction(m_exportStepsAction);
    file->addAction(m_exportCodeAction);
    file->addAction(m_copyCodeAction);
    file->addSeparator();
    file->addAction(m_importMatrixAction);
    file->addAction(m_exportMatrixAction);
    file->addSeparator();
    file->addAction(m_quitAction);
    updateRecentMenu();

    QMenu* edit = m_editMenu = menuBar()->addMenu(QString());
    edit->addAction(m_undoAction);
    edit->addAction(m_redoAction);

    QMenu* view = m_viewMenu = menuBar()->addMenu(QString());
    QMenu* step = m_stepMenu = view->addMenu(QString());
    step->addActions(m_heatmap->stepActions());
    QMenu* colours = m_colourMenu = view->addMenu(QString());
    const QList<QAction*> colourActions = m_heatmap->colormapActions();
    colours->addAction(colourActions.first());
    colours->addSeparator();
    colours->addActions(colourActions.mid(1));
    view->addAction(m_heatmap->annotateAction());
    view->addSeparator();
    view->addAction(m_heatmap->zoomInAction());
    view->addAction(m_heatmap->zoomOutAction());
    view->addAction(m_heatmap->zoomFitAction());
    view->addSeparator();
    QMenu* panels = m_panelsMenu = view->addMenu(QString());
    int key = Qt::Key_1;
    for (QDockWidget* dock : std::as_const(m_docks)) {
        QAction* toggle = dock->toggleViewAction();
        toggle->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key(key++)));
        panels->addAction(toggle);
    }
    panels->addSeparator();
    panels->addAction(m_resetLayoutAction);
    view->addAction(m_fullScreenAction);
    view->addAction(m_teachingAction);
    view->addAction(m_scalingAction);

    QMenu* presets = m_presetsMenu = menuBar()->addMenu(QString());
    presets->setToolTipsVisible(true);
    presets->addActions(m_presetActions);

    m_languageMenu = view->addMenu(QString());
    m_languageMenu->setObjectName(QStringLiteral("languageMenu"));
    auto* languages = new QActionGroup(this);
    for (const QString& code : i18n::availableLanguages()) {
        QAction* action = m_languageMenu->addAction(i18n::nativeName(code));
        action->setObjectName(QStringLiteral("language_") + code);
        action->setData(code);
        action->setCheckable(true);
        action->setChecked(code == i18n::currentLanguage());
        languages->addAction(action);
        connect(action, &QAction::triggered, this, [code] {
            i18n::applyLanguage(code);
            i18n::saveLanguage(code);
        });
    }

    QMenu* help = m_helpMenu = menuBar()->addMenu(QString());
    help->addAction(m_aboutAction);
    help->addAction(m_aboutQtAction);
}

void MainWindow::createStatusBar()
{
    m_computing = new QLabel;
    m_computing->setObjectName(QStringLiteral("computingLabel"));
    m_computing->hide();
    m_dimensions = new QLabel;
    m_dimensions->setObjectName(QStringLiteral("dimensionsLabel"));
    m_dimensions->setContentsMargins(8, 0, 8, 0);
    statusBar()->addPermanentWidget(m_computing);
    statusBar()->addPermanentWidget(m_dimensions);
}

void MainWindow::readSettings()
{
    QSettings settings;
    settings.beginGroup(QStringLiteral("window"));
    const QByteArray geometry = settings.value(QStringLiteral("geometry")).toByteArray();
    if (!geometry.isEmpty())
        restoreGeometry(geometry);
    restoreState(settings.value(QStringLiteral("state")).toByteArray(), layoutVersion);
    settings.endGroup();

    settings.beginGroup(QStringLiteral("heatmap"));
    const QString colormap = settings.value(QStringLiteral("colormap")).toString();
    m_heatmap->setColormapChoice(render::colormapFromName(colormap));
    m_heatmap->setAnnotate(settings.value(QStringLiteral("annotate"), true).toBool());
    const auto step = core::stepFromKey(settings.value(QStringLiteral("step")).toString().toStdString());
    if (step && HeatmapWidget::heatmapSteps().contains(*step))
        m_viewState->setHeatmapStep(*step);
    settings.endGroup();
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
    settings.setValue(QStringLiteral("annotate"), m_heatmap->annotate());
    settings.setValue(QStringLiteral("step"), QString::fromLatin1(core::stepKey(m_viewState->heatmapStep())));
    settings.endGroup();
}

bool MainWindow::openFile(const QString& path, QString* error)
{
    if (!m_document->openFile(path, error))
        return false;
    addRecentFile(m_document->filePath());
    statusBar()->showMessage(tr("Opened %1").arg(QFileInfo(path).fileName()), 6000);
    return true;
}

bool MainWindow::saveFile(const QString& path, QString* error)
{
    if (!m_document->saveFile(path, error))
        return false;
    addRecentFile(m_document->filePath());
    statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 6000);
    return true;
}

bool MainWindow::exportHeatmap(const QString& path, QString* error, QSize pixelSize)
{
    if (!m_heatmap->hasFigure()) {
        if (error)
            *error = tr("There is no heatmap to export: %1").arg(m_document->error());
        return false;
    }
    return render::exportHeatmap(m_heatmap->figureData(), m_heatmap->figureStyle(), path, pixelSize, error);
}

QSize MainWindow::heatmapPreferredSize() const
{
    return m_heatmap->hasFigure()
        ? render::HeatmapRenderer(m_heatmap->figureData(), m_heatmap->figureStyle()).preferredSize()
        : QSize();
}

bool MainWindow::loadPreset(const QString& name)
{
    auto session = core::preset(name.toStdString());
    if (!session)
        return false;
    m_document->loadSession(*session, QString());
    statusBar()->showMessage(tr("Loaded the preset %1").arg(name), 6000);
    return true;
}

QStringList MainWindow::recentFiles() const
{
    return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void MainWindow::addRecentFile(const QString& path)
{
    if (path.isEmpty())
        return;
    QStringList files = recentFiles();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > maxRecentFiles)
        files.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), files);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    int number = 1;
    for (const QString& path : files) {
        const QString label = tr("&%1 %2").arg(number).arg(QFileInfo(path).fileName());
        QAction* action = m_recentMenu->addAction(label, this, [this, path] { openInteractively(path); });
        action->setStatusTip(path);
        if (number <= 9)
            action->setShortcut(QKeySequence(Qt::ALT | Qt::SHIFT | Qt::Key(Qt::Key_0 + number)));
        ++number;
    }
    if (files.isEmpty())
        m_recentMenu->addAction(tr("No recent files"))->setEnabled(false);
    m_recentMenu->addSeparator();
    QAction* clear = m_recentMenu->addAction(tr("&Clear List"), this, [this] {
        QSettings().remove(QStringLiteral("recentFiles"));
        updateRecentMenu();
    });
    clear->setEnabled(!files.isEmpty());
}

QWidget* MainWindow::dialogParent()
{
    // A box parented to this window would open behind the full-screen slides, out of sight.
    if (m_teaching && m_teaching->isVisible())
        return m_teaching;
    return this;
}

bool MainWindow::maybeSave()
{
    if (!m_document->isModified())
        return true;
    QMessageBox box(QMessageBox::Warning, tr("Unsaved changes"),
                    tr("The session has changes that are not saved."), QMessageBox::Save | QMessageBox::Discard
                                                                          | QMessageBox::Cancel,
                    dialogParent());
    box.setObjectName(QStringLiteral("unsavedChangesBox"));
    box.setInformativeText(tr("Do you want to save them first?"));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save: return save();
    case QMessageBox::Discard: return true;
    default: return false;
    }
}

void MainWindow::newSession()
{
    if (maybeSave())
        loadPreset(QStringLiteral("illustrated"));
}

void MainWindow::openDialog()
{
    const QString dir = m_document->filePath().isEmpty()
        ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
        : QFileInfo(m_document->filePath()).absolutePath();
    if (!maybeSave())
        return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Session"), dir, sessionFilter());
    if (!path.isEmpty())
        openAsked(path);
}

void MainWindow::openInteractively(const QString& path)
{
    if (maybeSave())
        openAsked(path);
}

void MainWindow::openAsked(const QString& path)
{
    QString error;
    if (!openFile(path, &error))
        showError(tr("Could not open the session"), error);
}

bool MainWindow::save()
{
    if (m_document->filePath().isEmpty())
        return saveAs();
    QString error;
    if (!saveFile(m_document->filePath(), &error)) {
        showError(tr("Could not save the session"), error);
        return false;
    }
    return true;
}

bool MainWindow::saveAs()
{
    const QString start = m_document->filePath().isEmpty()
        ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation) + QLatin1Char('/') + suggestedBaseName()
            + QStringLiteral(".json")
        : m_document->filePath();
    QString path = QFileDialog::getSaveFileName(dialogParent(), tr("Save Session As"), start, sessionFilter());
    if (path.isEmpty())
        return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".json");
    QString error;
    if (!saveFile(path, &error)) {
        showError(tr("Could not save the session"), error);
        return false;
    }
    return true;
}

QString MainWindow::sessionTitle() const
{
    const auto& extras = m_document->session().extras;
    if (extras.is_object() && extras.contains("title") && extras["title"].is_string())
        return QString::fromStdString(extras["title"].get<std::string>());
    return {};
}

QString MainWindow::suggestedBaseName() const
{
    if (!m_document->filePath().isEmpty())
        return QFileInfo(m_document->filePath()).completeBaseName();
    QString name;
    for (const QChar c : sessionTitle())
        name += c.isLetterOrNumber() ? c.toLower() : QLatin1Char('-');
    name = name.split(QLatin1Char('-'), Qt::SkipEmptyParts).join(QLatin1Char('-'));
    return name.isEmpty() ? tr("attention") : name;
}

void MainWindow::exportDialog()
{
    if (!m_heatmap->hasFigure()) {
        showError(tr("Nothing to export"), m_document->error());
        return;
    }
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("exportDirectory"),
                                       QStandardPaths::writableLocation(QStandardPaths::PicturesLocation))
                            .toString();
    const QString base = suggestedBaseName() + QLatin1Char('-')
        + QString::fromLatin1(core::stepKey(m_viewState->heatmapStep())).replace(QLatin1Char('_'), QLatin1Char('-'));
    const QString png = tr("PNG image (*.png)"), svg = tr("SVG drawing (*.svg)"), pdf = tr("PDF document (*.pdf)");
    QString filter = png;
    QString path = QFileDialog::getSaveFileName(this, tr("Export Heatmap"), dir + QLatin1Char('/') + base + QStringLiteral(".png"),
                                                QStringList{png, svg, pdf}.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty())
        return;
    if (!render::heatmapExportFormats().contains(QFileInfo(path).suffix().toLower()))
        path += filter == svg ? QStringLiteral(".svg") : filter == pdf ? QStringLiteral(".pdf") : QStringLiteral(".png");
    settings.setValue(QStringLiteral("exportDirectory"), QFileInfo(path).absolutePath());
    QSize size;
    if (QFileInfo(path).suffix().compare(QLatin1String("png"), Qt::CaseInsensitive) == 0) {
        // A PNG has a pixel size: ask for its width, the height follows the figure.
        const QSize preferred = heatmapPreferredSize();
        bool ok = false;
        const int width = QInputDialog::getInt(this, tr("Export Heatmap"),
                                               tr("Width of the PNG in pixels (the height follows the figure):"),
                                               settings.value(QStringLiteral("exportPngWidth"), preferred.width() * 2).toInt(),
                                               64, 16384, 100, &ok);
        if (!ok)
            return;
        settings.setValue(QStringLiteral("exportPngWidth"), width);
        size = QSize(width, std::max(16, int(std::lround(double(width) * preferred.height() / std::max(1, preferred.width())))));
    }
    QString error;
    if (!exportHeatmap(path, &error, size)) {
        showError(tr("Could not export the heatmap"), error);
        return;
    }
    statusBar()->showMessage(tr("Exported %1").arg(QFileInfo(path).fileName()), 6000);
}

void MainWindow::copyHeatmap()
{
    if (!m_heatmap->hasFigure())
        return;
    const QImage image = render::renderHeatmapImage(m_heatmap->figureData(), m_heatmap->figureStyle(), QSize());
    if (image.isNull())
        return;
    QGuiApplication::clipboard()->setImage(image);
    statusBar()->showMessage(tr("Copied the heatmap (%1 × %2 pixels)").arg(image.width()).arg(image.height()), 6000);
}

void MainWindow::about()
{
    QMessageBox::about(
        this, tr("About Attention Explorer"),
        tr("<h3>Attention Explorer %1</h3>"
           "<p>See and touch every number of self-attention: type tokens, edit X and the weight matrices, "
           "and watch the scores, the softmax and the outputs follow.</p>"
           "<p>Hover any number to see the arithmetic behind it.</p>")
            .arg(QCoreApplication::applicationVersion()));
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultState, layoutVersion);
}

void MainWindow::toggleFullScreen(bool on)
{
    if (on)
        showFullScreen();
    else
        showNormal();
}

void MainWindow::updateTitle()
{
    QString name;
    if (!m_document->filePath().isEmpty()) {
        name = QFileInfo(m_document->filePath()).fileName();
    } else {
        name = sessionTitle();
    }
    if (name.isEmpty())
        name = tr("Untitled");
    if (m_recovered)
        name = tr("%1 (recovered)").arg(name);
    setWindowTitle(name + QStringLiteral("[*]"));
    setWindowModified(m_document->isModified());
}

void MainWindow::updateStatus()
{
    const core::AttentionModel& m = m_document->model();
    m_dimensions->setText(tr("n %1 · d_model %2 · d_k %3 · d_v %4 · heads %5")
                              .arg(m.n())
                              .arg(m.dModel())
                              .arg(m.dK())
                              .arg(m.dV())
                              .arg(m.heads()));
    m_computing->setVisible(m_document->isComputing());
    m_exportAction->setEnabled(m_heatmap->hasFigure());
    m_copyAction->setEnabled(m_heatmap->hasFigure());
    if (!m_document->error().isEmpty())
        statusBar()->showMessage(m_document->error());
}

bool MainWindow::offerRecovery()
{
    std::vector<RecoverableSession> found = Autosave::findRecoverable(m_autosave->folder());
    if (found.empty())
        return false;
    RecoverableSession& kept = found.front();  // the newest; any others wait for the next start
    const int tokens = kept.session.model.n();
    QMessageBox box(QMessageBox::Question, tr("Recover Unsaved Changes"),
                    tr("Attention Explorer did not close properly. It kept a session with changes that were not "
                       "saved."),
                    QMessageBox::NoButton, this);
    box.setObjectName(QStringLiteral("recoveryBox"));
    QString details = tr("Kept at %1, with %2.")
                          .arg(QLocale().toString(kept.savedAt, QLocale::LongFormat),
                               tokens == 1 ? tr("1 token") : tr("%1 tokens").arg(tokens));
    details += QLatin1Char('\n');
    details += kept.originalPath.isEmpty()
        ? tr("It was never saved to a file.")
        : tr("It came from %1; that file does not have these changes.").arg(QDir::toNativeSeparators(kept.originalPath));
    if (found.size() > 1)
        details += QLatin1Char('\n') + tr("Other kept sessions: %1. They will be offered at the next start.")
                                           .arg(found.size() - 1);
    box.setInformativeText(details);
    QPushButton* recover = box.addButton(tr("&Recover"), QMessageBox::AcceptRole);
    recover->setObjectName(QStringLiteral("recoverButton"));
    QPushButton* discard = box.addButton(tr("&Discard"), QMessageBox::DestructiveRole);
    discard->setObjectName(QStringLiteral("discardRecoveryButton"));
    QPushButton* later = box.addButton(tr("Decide &Later"), QMessageBox::RejectRole);
    later->setObjectName(QStringLiteral("laterButton"));
    box.setDefaultButton(recover);
    box.setEscapeButton(later);
    box.exec();

    if (box.clickedButton() == discard) {
        Autosave::removeRecoverable(kept);
        statusBar()->showMessage(tr("Discarded the kept session"), 6000);
        return false;
    }
    if (box.clickedButton() != recover)
        return false;  // the lock goes with found: the next start offers it again
    m_document->loadRecovered(kept.session, kept.originalPath);
    m_recovered = true;
    updateTitle();
    // Keep it under this window's name before the old file goes, so no moment holds it nowhere;
    // when that cannot be written the old file stays, for the next start.
    m_autosave->autosaveNow();
    m_autosave->waitForWrite();
    if (QFileInfo::exists(m_autosave->filePath()))
        Autosave::removeRecoverable(kept);
    statusBar()->showMessage(tr("Recovered the session kept at %1; it is not saved yet.")
                                 .arg(QLocale().toString(kept.savedAt, QLocale::ShortFormat)),
                             6000);
    return true;
}

void MainWindow::showError(const QString& title, const QString& text)
{
    auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, dialogParent());
    box->setObjectName(QStringLiteral("errorBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    m_autosave->remove();  // saved, discarded or nothing to save: nothing left to recover
    writeSettings();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (!localFileOf(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QString path = localFileOf(event->mimeData());
    if (path.isEmpty())
        return;
    event->acceptProposedAction();
    openInteractively(path);
}

void MainWindow::startTeaching()
{
    if (!m_teaching) {
        m_teaching = new TeachingView(m_document, m_viewState, this);
        m_teaching->setWindowFlag(Qt::Window);
        m_teaching->setWindowTitle(tr("Attention Explorer — Teaching Mode"));
        // The teacher can quit from the slides; the main window still asks about unsaved changes.
        m_teaching->addAction(m_quitAction);
        m_teaching->addAction(m_undoAction);
        m_teaching->addAction(m_redoAction);
        connect(m_teaching, &TeachingView::leaveRequested, m_teaching, &QWidget::close);
    }
    m_teaching->setSlide(0);
    m_teaching->showFullScreen();
    m_teaching->activateWindow();
    m_teaching->setFocus();
}

QString MainWindow::askSavePath(const QString& title, const QString& suffix, const QString& filter)
{
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("exportDirectory"),
                                       QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
                            .toString();
    QString path = QFileDialog::getSaveFileName(this, title, dir + QLatin1Char('/') + suggestedBaseName() + suffix, filter);
    if (path.isEmpty())
        return {};
    if (QFileInfo(path).suffix().isEmpty())
        path += suffix;
    settings.setValue(QStringLiteral("exportDirectory"), QFileInfo(path).absolutePath());
    return path;
}

void MainWindow::exportReportDialog()
{
    const auto trace = m_document->trace();
    if (!trace) {
        showError(tr("Nothing to export"), m_document->error());
        return;
    }
    const QString path = askSavePath(tr("Export Report"), QStringLiteral(".pdf"), tr("PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exports::writeReport(*trace, sessionTitle(), path, &error)) {
        showError(tr("Could not write the report"), error);
        return;
    }
    statusBar()->showMessage(tr("Wrote the report %1").arg(QFileInfo(path).fileName()), 6000);
}

void MainWindow::exportStepsDialog()
{
    const auto trace = m_document->trace();
    if (!trace) {
        showError(tr("Nothing to export"), m_document->error());
        return;
    }
    QSettings settings;
    const QString start = settings.value(QStringLiteral("exportDirectory"),
                                         QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
                              .toString();
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Export Step Matrices into Folder"), start);
    if (folder.isEmpty())
        return;
    settings.setValue(QStringLiteral("exportDirectory"), folder);
    QString error;
    QStringList written;
    if (!exports::writeStepFiles(*trace, folder, &error, &written)) {
        showError(tr("Could not export the step matrices"), error);
        return;
    }
    statusBar()->showMessage(tr("Wrote %n file(s) into %1", nullptr, int(written.size())).arg(folder), 6000);
}

void MainWindow::exportCodeDialog()
{
    const QString path = askSavePath(tr("Export PyTorch Code"), QStringLiteral(".py"), tr("Python file (*.py)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exports::writePytorchFile(m_document->model(), sessionTitle(), path, &error)) {
        showError(tr("Could not write the code"), error);
        return;
    }
    statusBar()->showMessage(tr("Wrote %1").arg(QFileInfo(path).fileName()), 6000);
}

void MainWindow::copyCode()
{
    const std::string code = core::pytorchCode(m_document->model(), sessionTitle().toStdString());
    QGuiApplication::clipboard()->setText(QString::fromStdString(code));
    statusBar()->showMessage(tr("Copied PyTorch code for this session"), 6000);
}

void MainWindow::importMatrixDialog()
{
    const MatrixId id = m_matrices->currentMatrix();
    const core::Matrix& current = m_document->matrix(id);
    if (current.size() == 0) {
        showError(tr("Nothing to replace"), tr("This session has no %1.").arg(matrixKey(id)));
        return;
    }
    QSettings settings;
    const QString start = settings.value(QStringLiteral("importDirectory"),
                                         QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
                              .toString();
    const QString path = QFileDialog::getOpenFileName(this, tr("Import Matrix into %1").arg(matrixKey(id)), start,
                                                      tr("Matrices (*.npy *.csv *.tsv *.txt);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("importDirectory"), QFileInfo(path).absolutePath());
    QString error;
    const auto matrix = exports::readMatrixFile(path, &error);
    if (!matrix) {
        showError(tr("Could not import the matrix"), error);
        return;
    }
    if (matrix->rows() != current.rows() || matrix->cols() != current.cols()) {
        showError(tr("Could not import the matrix"),
                  tr("%1 is %2 × %3, but %4 needs %5 × %6. Change the dimensions first, or paste a block.")
                      .arg(QFileInfo(path).fileName())
                      .arg(matrix->rows())
                      .arg(matrix->cols())
                      .arg(matrixKey(id))
                      .arg(current.rows())
                      .arg(current.cols()));
        return;
    }
    m_document->setMatrix(id, *matrix, tr("Import %1").arg(QFileInfo(path).fileName()));
}

void MainWindow::exportMatrixDialog()
{
    const MatrixId id = m_matrices->currentMatrix();
    const core::Matrix& current = m_document->matrix(id);
    if (current.size() == 0)
        return;
    const QString path = askSavePath(tr("Export %1").arg(matrixKey(id)), QStringLiteral(".npy"),
                                     tr("NumPy array (*.npy);;CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exports::writeMatrixFile(path, current, &error)) {
        showError(tr("Could not export the matrix"), error);
        return;
    }
    statusBar()->showMessage(tr("Wrote %1").arg(QFileInfo(path).fileName()), 6000);
}

}  // namespace ui
