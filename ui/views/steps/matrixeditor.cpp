#include "ui/views/steps/matrixeditor.h"

#include "ui/views/widgets/flowlayout.h"
#include "ui/views/widgets/labelheaderview.h"
#include "ui/views/widgets/numberdelegate.h"
#include "ui/render/cellstyle.h"
#include "ui/document/matrixtablemodel.h"
#include "ui/i18n/language.h"
#include "ui/document/viewstate.h"

#include "core/attention/edit.h"
#include "core/attention/embedding.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QStyle>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace ui {

namespace {

constexpr std::array<MatrixId, 5> allMatrices = {MatrixId::Embeddings, MatrixId::Query, MatrixId::Key,
                                                  MatrixId::Value, MatrixId::Output};

QString tabTitle(MatrixId id)
{
    return matrixTitle(id);
}

QString tabToolTip(MatrixId id)
{
    switch (id) {
    case MatrixId::Embeddings: return MatrixEditorPanel::tr("Token embeddings X: one row per token (n × d_model)");
    case MatrixId::Query: return MatrixEditorPanel::tr("Query weights W_Q (d_model × h·d_k)");
    case MatrixId::Key: return MatrixEditorPanel::tr("Key weights W_K (d_model × h·d_k)");
    case MatrixId::Value: return MatrixEditorPanel::tr("Value weights W_V (d_model × h·d_v)");
    case MatrixId::Output: return MatrixEditorPanel::tr("Output projection W_O (h·d_v × d_out)");
    }
    return {};
}

/** A tool of the row above the tables, framed so that it reads as a button. */
QToolButton* toolButton(const char* name, QWidget* parent)
{
    auto* b = new QToolButton(parent);
    b->setObjectName(QLatin1String(name));
    b->setAutoRaise(false);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    return b;
}

/** Widens the columns of a few changed cells (an edit, a small paste) whose number no longer fits, in bold when
 *  the cell is an edited weight: a column never cuts or elides a number just typed. */
void widenToFit(QTableView* table, const QModelIndex& topLeft, const QModelIndex& bottomRight)
{
    constexpr int fewCells = 256;
    if (!topLeft.isValid() || !bottomRight.isValid()
        || (bottomRight.row() - topLeft.row() + 1) * (bottomRight.column() - topLeft.column() + 1) > fewCells)
        return;
    const int margin = 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1) + 2;
    QFont bold = table->font();
    bold.setBold(true);
    const QFontMetrics regular(table->font()), wide(bold);
    QHeaderView* header = table->horizontalHeader();
    for (int col = topLeft.column(); col <= bottomRight.column(); ++col) {
        int needed = 0;
        for (int row = topLeft.row(); row <= bottomRight.row(); ++row) {
            const QModelIndex index = table->model()->index(row, col);
            const QString text = index.data(Qt::DisplayRole).toString();
            needed = std::max(needed, (index.data(EditedRole).toBool() ? wide : regular).horizontalAdvance(text));
        }
        if (needed + margin > header->sectionSize(col))
            header->resizeSection(col, needed + margin);
    }
}

}  // namespace

MatrixEditorPanel::MatrixEditorPanel(Document* document, ViewState* view, QWidget* parent)
    : QWidget(parent), m_document(document), m_view(view), m_tabs(new QTabWidget(this)),
      m_seed(new QSpinBox(this)), m_factor(new QDoubleSpinBox(this)), m_precision(new QSpinBox(this)),
      m_message(new QLabel(this))
{
    for (MatrixId id : allMatrices) {
        QTableView* table = newTable(id);
        if (id == MatrixId::Output)
            m_tabs->addTab(outputPage(table), QString());
        else
            m_tabs->addTab(table, QString());
    }

    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setObjectName(QStringLiteral("matrixEditorMessage"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(toolRow());
    layout->addWidget(m_tabs, 1);
    layout->addWidget(m_message);

    connect(document, &Document::modelChanged, this, &MatrixEditorPanel::updateOutputPage);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { showMessage(QString()); });
    updateBaseColors();
    showMessage(QString());
    i18n::onLanguageChange(this, [this] { retranslate(); });
}

QTableView* MatrixEditorPanel::newTable(MatrixId id)
{
    auto* model = new MatrixTableModel(m_document, id, m_view, this);
    auto* table = new QTableView(this);
    // X's rows are labelled by the tokens: a new text measures only the new ones.
    table->setHorizontalHeader(new LabelHeaderView(Qt::Horizontal, table));
    table->setVerticalHeader(new LabelHeaderView(Qt::Vertical, table));
    table->setModel(model);
    // One delegate per view: a shared one sends every view each editor's commit, and the views other
    // than the editor's own warn about it.
    table->setItemDelegate(new NumberDelegate(table));
    table->setObjectName(QStringLiteral("matrix_%1").arg(matrixKey(id)));
    table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                           | QAbstractItemView::AnyKeyPressed);
    table->setSelectionMode(QAbstractItemView::ContiguousSelection);
    table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    table->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    table->setWordWrap(false);
    table->horizontalHeader()->setDefaultSectionSize(table->fontMetrics().horizontalAdvance(QStringLiteral("−00.0000")) + 8);
    table->horizontalHeader()->setMinimumSectionSize(24);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    connect(model, &QAbstractItemModel::dataChanged, table,
            [table](const QModelIndex& topLeft, const QModelIndex& bottomRight) {
                widenToFit(table, topLeft, bottomRight);
            });

    auto* copy = new QAction(table);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copy, &QAction::triggered, this, &MatrixEditorPanel::copySelection);
    auto* paste = new QAction(table);
    paste->setShortcut(QKeySequence::Paste);
    paste->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(paste, &QAction::triggered, this, &MatrixEditorPanel::paste);
    table->addAction(copy);
    table->addAction(paste);
    i18n::onLanguageChange(copy, [copy, paste] {
        copy->setText(tr("Copy"));
        paste->setText(tr("Paste"));
    });
    table->setContextMenuPolicy(Qt::ActionsContextMenu);

    connect(model, &MatrixTableModel::refused, this, &MatrixEditorPanel::showMessage);
    m_models[std::size_t(id)] = model;
    m_tables[std::size_t(id)] = table;
    return table;
}

QWidget* MatrixEditorPanel::outputPage(QTableView* table)
{
    // A model without W_O: a word on what that means and a button to add one, in place of the table.
    m_outputStack = new QStackedWidget(this);
    auto* hint = new QWidget(this);
    auto* hintLayout = new QVBoxLayout(hint);
    auto* label = new QLabel(hint);
    label->setWordWrap(true);
    auto* add = new QPushButton(hint);
    i18n::onLanguageChange(add, [label, add] {
        label->setText(tr("This model has no output projection W_O: the output is the heads' "
                          "outputs side by side."));
        add->setText(tr("Add W_O"));
        add->setToolTip(tr("Add an output projection, starting as the identity"));
    });
    connect(add, &QPushButton::clicked, this, [this] { m_document->setOutputProjection(true); });
    hintLayout->addWidget(label);
    hintLayout->addWidget(add, 0, Qt::AlignLeft);
    hintLayout->addStretch();
    m_outputStack->addWidget(hint);
    m_outputStack->addWidget(table);
    return m_outputStack;
}

FlowLayout* MatrixEditorPanel::toolRow()
{
    // The tool row: fill actions, precision.
    auto* tools = new FlowLayout(nullptr, 12, 4);
    m_copyButton = toolButton("copyButton", this);
    m_pasteButton = toolButton("pasteButton", this);
    m_randomButton = toolButton("randomButton", this);
    m_zerosButton = toolButton("zerosButton", this);
    m_identityButton = toolButton("identityButton", this);
    m_scaleButton = toolButton("scaleButton", this);
    connect(m_copyButton, &QToolButton::clicked, this, &MatrixEditorPanel::copySelection);
    connect(m_pasteButton, &QToolButton::clicked, this, &MatrixEditorPanel::paste);
    connect(m_randomButton, &QToolButton::clicked, this, &MatrixEditorPanel::fillRandom);
    connect(m_zerosButton, &QToolButton::clicked, this, &MatrixEditorPanel::fillZeros);
    connect(m_identityButton, &QToolButton::clicked, this, &MatrixEditorPanel::fillIdentity);
    connect(m_scaleButton, &QToolButton::clicked, this, &MatrixEditorPanel::scale);
    m_seed->setRange(0, 999999);
    m_seed->setValue(1);
    m_factor->setRange(-1000, 1000);
    m_factor->setDecimals(3);
    m_factor->setValue(2);
    m_precision->setRange(0, 6);
    m_precision->setValue(2);
    connect(m_precision, &QSpinBox::valueChanged, this, [this](int decimals) {
        for (auto* model : m_models)
            model->setPrecision(decimals);
    });
    // The tool row wraps in a narrow window; a button stays with the box it reads.
    tools->addWidget(FlowLayout::group({m_copyButton, m_pasteButton}, 2));
    tools->addWidget(FlowLayout::group({m_randomButton, m_seed}, 2));
    tools->addWidget(FlowLayout::group({m_zerosButton, m_identityButton}, 2));
    tools->addWidget(FlowLayout::group({m_scaleButton, m_factor}, 2));
    tools->addWidget(m_precision);
    // A model session's own tools: ablate the head shown, give the checkpoint's values back.
    m_zeroHeadButton = toolButton("zeroHeadButton", this);
    m_resetLayerButton = toolButton("resetLayerButton", this);
    m_resetAllButton = toolButton("resetAllButton", this);
    connect(m_zeroHeadButton, &QToolButton::clicked, this, [this] {
        if (!m_document->zeroHead(m_view->head()))
            showMessage(tr("There is no head %1 to zero.").arg(m_view->head() + 1));
    });
    connect(m_resetLayerButton, &QToolButton::clicked, m_document, &Document::resetLayer);
    connect(m_resetAllButton, &QToolButton::clicked, m_document, &Document::resetAll);
    m_modelTools = FlowLayout::group({m_zeroHeadButton, m_resetLayerButton, m_resetAllButton}, 2);
    m_modelTools->setObjectName(QStringLiteral("modelTools"));
    tools->addWidget(m_modelTools);
    const auto syncModelTools = [this] {
        m_modelTools->setVisible(m_document->isModelSession());
        const bool edited = m_document->modelSession() && m_document->modelSession()->isEdited();
        m_resetAllButton->setEnabled(edited);
        m_resetLayerButton->setEnabled(edited);
    };
    connect(m_document, &Document::modelChanged, this, syncModelTools);
    connect(m_document, &Document::predictionChanged, this, syncModelTools);
    syncModelTools();
    return tools;
}

void MatrixEditorPanel::retranslate()
{
    const std::pair<QToolButton*, QString> buttons[] = {
        {m_copyButton, tr("Copy")}, {m_pasteButton, tr("Paste")}, {m_randomButton, tr("Random")},
        {m_zerosButton, tr("Zeros")}, {m_identityButton, tr("Identity")}, {m_scaleButton, tr("Scale ×")}};
    const QString tips[] = {tr("Copy the selected cells, tab-separated (Ctrl+C)"),
                            tr("Paste a block at the current cell (Ctrl+V)"),
                            tr("Fill with random numbers from the seed (Glorot uniform)"), tr("Fill with zeros"),
                            tr("Ones on the diagonal, zeros elsewhere"), tr("Multiply every cell by the factor")};
    for (int i = 0; i < 6; ++i) {
        buttons[i].first->setText(buttons[i].second);
        buttons[i].first->setToolTip(tips[i]);
    }
    m_zeroHeadButton->setText(tr("Zero Head"));
    m_zeroHeadButton->setToolTip(tr("Set the shown head's rows of W_O to 0, so that its output no longer reaches the "
                                    "model (an ablation); undo gives them back"));
    m_resetLayerButton->setText(tr("Reset Layer"));
    m_resetLayerButton->setToolTip(tr("Give every edited weight of the shown layer its checkpoint value"));
    m_resetAllButton->setText(tr("Reset All"));
    m_resetAllButton->setToolTip(tr("Give every edited weight of every layer its checkpoint value"));
    m_seed->setPrefix(tr("seed "));
    m_seed->setToolTip(tr("The seed of the random fill: the same seed gives the same numbers"));
    m_seed->setAccessibleName(tr("Seed of the random fill"));
    m_factor->setToolTip(tr("The factor of Scale ×"));
    m_factor->setAccessibleName(tr("Factor of Scale ×"));
    m_precision->setAccessibleName(tr("Decimals shown"));
    m_tabs->setAccessibleName(tr("Matrices"));
    m_precision->setPrefix(tr("decimals "));
    m_precision->setToolTip(tr("Decimals shown; editing a cell shows its exact value"));
    for (MatrixId id : allMatrices) {
        m_tabs->setTabText(int(id), tabTitle(id));
        m_tables[std::size_t(id)]->setAccessibleName(tabTitle(id));
        m_tabs->setTabToolTip(int(id), tabToolTip(id));
    }
    updateOutputPage();
}

MatrixId MatrixEditorPanel::currentMatrix() const
{
    return allMatrices[std::size_t(std::clamp(m_tabs->currentIndex(), 0, 4))];
}

void MatrixEditorPanel::setCurrentMatrix(MatrixId id)
{
    m_tabs->setCurrentIndex(int(id));
}

QString MatrixEditorPanel::message() const
{
    return m_message->text();
}

void MatrixEditorPanel::showMessage(const QString& text)
{
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
}

void MatrixEditorPanel::updateOutputPage()
{
    const bool hasOutput = m_document->model().wo.has_value();
    m_outputStack->setCurrentIndex(hasOutput ? 1 : 0);
    // Set only when it changes: a tab's new text lays the tab bar, the dock and the whole window out again, and
    // this runs after every edit.
    const QString title = hasOutput ? tabTitle(MatrixId::Output) : tr("W_O (none)");
    if (m_tabs->tabText(int(MatrixId::Output)) != title)
        m_tabs->setTabText(int(MatrixId::Output), title);
}

void MatrixEditorPanel::updateBaseColors()
{
    for (std::size_t i = 0; i < m_models.size(); ++i)
        m_models[i]->setBaseColor(m_tables[i]->palette().color(QPalette::Base));
}

void MatrixEditorPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange)
        updateBaseColors();
    QWidget::changeEvent(event);
}

void MatrixEditorPanel::copySelection()
{
    QTableView* table = tableView(currentMatrix());
    const QModelIndexList selected = table->selectionModel()->selectedIndexes();
    if (selected.isEmpty()) {
        showMessage(tr("Select the cells to copy first."));
        return;
    }
    int top = INT_MAX, left = INT_MAX, bottom = -1, right = -1;
    for (const QModelIndex& i : selected) {
        top = std::min(top, i.row());
        left = std::min(left, i.column());
        bottom = std::max(bottom, i.row());
        right = std::max(right, i.column());
    }
    const core::Matrix cells = tableOf(m_document->model(), currentMatrix());  // a bias row too
    const std::string text = core::formatBlock(cells.block(top, left, bottom - top + 1, right - left + 1));
    QApplication::clipboard()->setText(QString::fromStdString(text));
    showMessage(tr("Copied %1 × %2 cells.").arg(bottom - top + 1).arg(right - left + 1));
}

void MatrixEditorPanel::paste()
{
    pasteText(QApplication::clipboard()->text());
}

QString MatrixEditorPanel::blockErrorText(const core::BlockError& error)
{
    using Kind = core::BlockError::Kind;
    switch (error.kind) {
    case Kind::NotANumber:
        return tr("row %1, column %2: “%3” is not a finite number")
            .arg(error.row)
            .arg(error.column)
            .arg(QString::fromStdString(error.cell));
    case Kind::Ragged:
        return tr("row %1 has %2 cells, the first row %3").arg(error.row).arg(error.cells).arg(error.firstRowCells);
    case Kind::Empty:
        break;
    }
    return tr("there are no numbers to paste");
}

bool MatrixEditorPanel::pasteText(const QString& text)
{
    const MatrixId id = currentMatrix();
    // The table as shown: a block reaches the bias row below the weight's last as it reaches any other.
    const core::Matrix target = tableOf(m_document->model(), id);
    if (target.size() == 0) {
        showMessage(tr("There is no %1 to paste into.").arg(tabTitle(id)));
        return false;
    }
    core::BlockError error;
    const auto block = core::parseBlock(text.toStdString(), error);
    if (!block) {
        showMessage(tr("Nothing pasted: %1").arg(blockErrorText(error)));
        return false;
    }
    QModelIndex at = tableView(id)->currentIndex();
    const int row = at.isValid() ? at.row() : 0, col = at.isValid() ? at.column() : 0;
    const core::Paste paste = core::pasted(target, *block, row, col);
    m_document->setMatrix(id, paste.matrix,
                          tr("Pasted %1 × %2 cells into %3").arg(paste.rows).arg(paste.cols).arg(tabTitle(id)));
    if (paste.clipped)
        showMessage(tr("Pasted %1 × %2 of the %3 × %4 block at row %5, column %6 of the %7 × %8 matrix: "
                       "the cells past the edge were left out.")
                        .arg(paste.rows)
                        .arg(paste.cols)
                        .arg(block->rows())
                        .arg(block->cols())
                        .arg(row + 1)
                        .arg(col + 1)
                        .arg(target.rows())
                        .arg(target.cols()));
    else
        showMessage(tr("Pasted %1 × %2 cells.").arg(paste.rows).arg(paste.cols));
    return true;
}

void MatrixEditorPanel::setCurrentMatrixValue(const core::Matrix& value, const QString& actionText)
{
    const MatrixId id = currentMatrix();
    if (m_document->matrix(id).size() == 0) {
        showMessage(tr("There is no %1 to fill.").arg(tabTitle(id)));
        return;
    }
    if (m_document->setMatrix(id, value, actionText))
        showMessage(QString());
    else
        showMessage(tr("%1 not changed: the result would not be all finite numbers.").arg(tabTitle(id)));
}

void MatrixEditorPanel::fillRandom()
{
    const core::Matrix& m = m_document->matrix(currentMatrix());
    setCurrentMatrixValue(core::initWeights(int(m.rows()), int(m.cols()), core::Init::Uniform, std::uint64_t(m_seed->value())),
                          tr("Filled %1 at random (seed %2)").arg(tabTitle(currentMatrix())).arg(m_seed->value()));
}

void MatrixEditorPanel::fillZeros()
{
    const core::Matrix& m = m_document->matrix(currentMatrix());
    setCurrentMatrixValue(core::initWeights(int(m.rows()), int(m.cols()), core::Init::Zeros),
                          tr("Filled %1 with zeros").arg(tabTitle(currentMatrix())));
}

void MatrixEditorPanel::fillIdentity()
{
    const core::Matrix& m = m_document->matrix(currentMatrix());
    setCurrentMatrixValue(core::initWeights(int(m.rows()), int(m.cols()), core::Init::Identity),
                          tr("Filled %1 with the identity").arg(tabTitle(currentMatrix())));
}

void MatrixEditorPanel::scale()
{
    // Every cell of the table, the bias with its weight: Q = X·W_Q + b_Q is then scaled as a whole.
    const MatrixId id = currentMatrix();
    const double factor = m_factor->value();
    const QString bias = biasTitle(id);
    setCurrentMatrixValue(tableOf(m_document->model(), id) * factor,
                          biasOf(m_document->model(), id)
                              ? tr("Scaled %1 and %2 by %3").arg(tabTitle(id), bias).arg(factor)
                              : tr("Scaled %1 by %2").arg(tabTitle(id)).arg(factor));
}

}  // namespace ui
