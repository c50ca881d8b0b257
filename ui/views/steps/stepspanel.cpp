#include "ui/views/steps/stepspanel.h"

#include "ui/views/widgets/flowlayout.h"
#include "ui/views/widgets/querychooser.h"
#include "ui/views/steps/stepblock.h"
#include "ui/views/steps/ropechartwidget.h"
#include "ui/views/widgets/wrappedlabel.h"
#include "ui/document/document.h"
#include "ui/i18n/language.h"
#include "ui/document/steptablemodel.h"
#include "ui/document/viewstate.h"
#include "ui/render/stepwording.h"

#include <QComboBox>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSpinBox>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

namespace ui {

namespace {

QString shapeText(int rows, int cols)
{
    return StepsPanel::tr("%1 × %2").arg(rows).arg(cols);
}

QString shapeOf(const StepBlock* block)
{
    return shapeText(block->model()->rowCount(), block->model()->columnCount());
}

/** Each edit refreshes the panel: a text or tooltip is set only when it changes, so a label is not laid
 *  out again and a screen reader not told of a change for the same words. */
void changeText(QLabel* label, const QString& text)
{
    if (label->text() != text)
        label->setText(text);
}

void changeToolTip(QWidget* widget, const QString& tip)
{
    if (widget->toolTip() != tip)
        widget->setToolTip(tip);
}

QString tokenName(const core::Trace& trace, int i)
{
    return i >= 0 && i < trace.n() ? QString::fromStdString(trace.model->tokens[std::size_t(i)]) : QString();
}

}  // namespace

StepsPanel::StepsPanel(Document* document, ViewState* view, QWidget* parent)
    : QWidget(parent), m_document(document), m_view(view), m_head(new QComboBox(this)),
      m_query(new QComboBox(this)), m_precision(new QSpinBox(this))
{
    auto* bar = new QHBoxLayout;
    auto* headLabel = new QLabel(this);
    headLabel->setBuddy(m_head);
    auto* queryLabel = new QLabel(this);
    queryLabel->setBuddy(m_query);
    auto* precisionLabel = new QLabel(this);
    precisionLabel->setBuddy(m_precision);
    m_precision->setRange(0, 6);
    m_precision->setValue(2);
    bar->addWidget(headLabel);
    bar->addWidget(m_head);
    bar->addSpacing(8);
    bar->addWidget(queryLabel);
    bar->addWidget(m_query, 1);
    bar->addSpacing(8);
    bar->addWidget(precisionLabel);
    bar->addWidget(m_precision);

    auto* container = new QWidget;
    auto* column = new QVBoxLayout(container);
    m_column = column;
    column->setSpacing(10);
    m_steps.reserve(7);
    // A new trace may turn tables into thumbnails and back (a model of d_k 64 crossing 64 tokens turns eight), and
    // each table or thumbnail shown laid the whole panel out at once (QWidget::setVisible activates the layouts
    // above it). Connected before the steps' models, so that it comes first: the panel's layout waits until
    // every step has its new matrix, then lays the panel out once (refresh()).
    connect(document, &Document::traceChanged, this, [this] { m_column->setEnabled(false); });

    // The blocks of each step; titles, formulas and captions are set in the current language below.
    const std::vector<std::vector<StepTableModel*>> steps = {
        {new StepTableModel(document, view, core::Step::X, this)},
        // Q, K, V; with rotary positions Q and K also as they were before the turn (shown before each, below)
        {new StepTableModel(document, view, core::Step::Queries, this), new StepTableModel(document, view, core::Step::Keys, this),
         new StepTableModel(document, view, core::Step::Values, this),
         new StepTableModel(document, view, core::Step::QueriesUnrotated, this),
         new StepTableModel(document, view, core::Step::KeysUnrotated, this)},
        {new StepTableModel(document, view, core::Step::Scores, this)},
        {new StepTableModel(document, view, core::Step::ScaledScores, this)},
        {new StepTableModel(document, view, core::Step::Weights, this)},
        {StepTableModel::weightedValues(document, view, this)},
        {new StepTableModel(document, view, core::Step::Outputs, this), new StepTableModel(document, view, core::Step::Output, this)},
    };
    for (const auto& models : steps) {
        StepWidgets& s = addStep(column);
        for (StepTableModel* m : models)
            addBlock(s, m, QString());
    }
    column->addStretch();
    // 3 · with rotary positions, what the distance does to one query's score
    m_ropeChart = new RopeChartWidget(document, view);
    m_steps[2].row->addWidget(m_ropeChart);
    // Q before the turn, Q′, K before the turn, K′, V
    for (const auto [block, place] : {std::pair{stepQUnrotated, 0}, std::pair{stepKUnrotated, 2}}) {
        m_steps[1].row->removeWidget(m_steps[1].blocks[block]);
        m_steps[1].row->insertWidget(place, m_steps[1].blocks[block]);
    }

    m_scroll = new QScrollArea(this);
    m_scroll->setWidget(container);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_scroll, 1);

    connect(m_precision, &QSpinBox::valueChanged, this, [this](int decimals) {
        for (StepWidgets& s : m_steps)
            for (StepBlock* b : s.blocks)
                b->model()->setPrecision(decimals);
    });
    connect(m_head, &QComboBox::activated, this, [this](int index) { m_view->setHead(index); });
    connect(m_query, &QComboBox::activated, this, [this](int index) { m_view->setSelectedQuery(index); });
    connect(document, &Document::traceChanged, this, &StepsPanel::refresh);
    connect(view, &ViewState::headChanged, this, &StepsPanel::refresh);
    connect(view, &ViewState::selectedQueryChanged, this, &StepsPanel::refresh);
    i18n::onLanguageChange(this, [this, headLabel, queryLabel, precisionLabel] {
        headLabel->setText(tr("&Head"));
        queryLabel->setText(tr("&Query"));
        precisionLabel->setText(tr("&Decimals"));
        m_head->setToolTip(tr("The attention head whose steps are shown"));
        m_query->setToolTip(tr("The query token whose weighted values step 6 shows"));
        m_precision->setToolTip(tr("Decimals of every number shown; hover a number for its exact arithmetic"));
        m_scroll->setAccessibleName(tr("The seven steps"));
        m_steps[0].blocks[0]->setCaption(tr("<i>X</i>"));
        m_steps[2].blocks[0]->setCaption(tr("query ↓ · key →"));
        m_steps[3].blocks[0]->setCaption(tr("scaled scores"));
        m_steps[4].blocks[0]->setCaption(tr("attention weights"));
        m_steps[6].blocks[0]->setCaption(tr("<i>Z</i>"));
        m_steps[6].blocks[1]->setCaption(tr("output"));
        refresh();
    });
}

StepsPanel::StepWidgets& StepsPanel::addStep(QVBoxLayout* column)
{
    auto* frame = new QFrame;
    column->addWidget(frame);
    frame->setFrameShape(QFrame::StyledPanel);
    auto* layout = new QVBoxLayout(frame);
    layout->setSpacing(4);

    StepWidgets s;
    s.title = new QLabel(frame);
    QFont bold = s.title->font();
    bold.setBold(true);
    s.title->setFont(bold);
    s.shape = new QLabel(frame);
    s.shape->setForegroundRole(QPalette::PlaceholderText);
    auto* header = new QHBoxLayout;
    header->addWidget(s.title);
    header->addStretch();
    header->addWidget(s.shape);
    layout->addLayout(header);

    s.formula = new WrappedLabel(frame);
    s.formula->setTextFormat(Qt::RichText);
    QFont math = s.formula->font();
    math.setFamily(QStringLiteral("serif"));
    math.setPointSizeF(math.pointSizeF() * 1.15);
    s.formula->setFont(math);
    layout->addWidget(s.formula);

    s.note = new WrappedLabel(frame);
    s.note->setForegroundRole(QPalette::PlaceholderText);
    s.note->hide();
    layout->addWidget(s.note);

    s.row = new FlowLayout(nullptr, 16, 10);
    layout->addLayout(s.row);
    m_steps.push_back(s);
    return m_steps.back();
}

StepBlock* StepsPanel::addBlock(StepWidgets& step, StepTableModel* model, const QString& caption)
{
    auto* block = new StepBlock(model, m_view, caption);
    model->setPrecision(m_precision->value());
    step.row->addWidget(block);
    step.blocks.push_back(block);
    step.named.emplace_back();
    return block;
}

QString StepsPanel::stepTitle(int number) const
{
    return number >= 1 && number <= stepCount() ? m_steps[std::size_t(number - 1)].title->text() : QString();
}

QString StepsPanel::stepFormula(int number) const
{
    if (number < 1 || number > stepCount())
        return {};
    return render::plainFormula(m_steps[std::size_t(number - 1)].formula->text());
}

QString StepsPanel::stepShape(int number) const
{
    return number >= 1 && number <= stepCount() ? m_steps[std::size_t(number - 1)].shape->text() : QString();
}

std::vector<StepBlock*> StepsPanel::stepBlocks(int number) const
{
    return number >= 1 && number <= stepCount() ? m_steps[std::size_t(number - 1)].blocks : std::vector<StepBlock*>();
}

int StepsPanel::precision() const
{
    return m_precision->value();
}

void StepsPanel::setPrecision(int decimals)
{
    m_precision->setValue(decimals);
}

void StepsPanel::updateChoosers()
{
    const auto trace = m_document->trace();
    const int heads = trace ? trace->headCount() : 0;
    if (m_head->count() != heads) {
        m_head->clear();
        for (int h = 0; h < heads; ++h)
            m_head->addItem(tr("%1").arg(h + 1));
    }
    m_head->setCurrentIndex(std::clamp(m_view->head(), 0, std::max(0, heads - 1)));
    m_head->setEnabled(heads > 1);
    syncQueryCombo(m_query, trace.get(), m_view->selectedQuery());
}

void StepsPanel::refresh()
{
    if (!m_column->isEnabled()) {
        m_column->setEnabled(true);
        m_column->activate();
    }
    updateChoosers();
    const auto trace = m_document->trace();
    const core::AttentionModel& model = trace ? *trace->model : m_document->model();

    // Titles, formulas and notes from the one wording of the steps; the shapes in numbers (none for a
    // skipped step 4).
    const bool skipped = !model.options.scale && model.options.temperature == 1.0;
    for (int number = 1; number <= stepCount(); ++number) {
        const render::StepText text = render::StepWording::step(number, model);
        StepWidgets& s = m_steps[std::size_t(number - 1)];
        changeText(s.title, render::StepWording::numberedTitle(number, model));
        changeToolTip(s.title, text.explanation);
        changeText(s.formula, text.formula);
        const bool shaped = trace && !s.blocks.empty() && !(number == 4 && skipped);
        changeText(s.shape, shaped ? shapeOf(s.blocks.front()) : QString());
        changeToolTip(s.shape, tr("rows × columns: %1").arg(text.shape));
        changeText(s.note, text.note);
        s.note->setVisible(trace && !text.note.isEmpty());
    }
    if (!trace) {
        changeText(m_steps[0].note, m_document->error().isEmpty() ? tr("Computing…") : m_document->error());
        m_steps[0].note->show();
        return;
    }
    const int query = std::clamp(m_view->selectedQuery(), 0, std::max(0, trace->n() - 1));

    // 2 · Q, K, V: one shape when they agree; with rotary positions Q and K before and after the turn; with shared
    // K/V heads, K and V named by the query heads that read them.
    const std::vector<StepBlock*>& qkv = m_steps[1].blocks;
    StepBlock* const q = qkv[stepQ];
    StepBlock* const v = qkv[stepV];
    if (shapeOf(q) == shapeOf(v))
        changeText(m_steps[1].shape, shapeOf(q));
    else
        changeText(m_steps[1].shape, tr("Q, K: %1 · V: %2").arg(shapeOf(q), shapeOf(v)));
    const bool rotary = model.options.positionalEncoding == core::PositionalEncoding::Rotary;
    qkv[stepQUnrotated]->setVisible(rotary);
    qkv[stepKUnrotated]->setVisible(rotary);
    const QString shared = render::StepWording::kvHeadLabel(model, qkv[stepK]->model()->head());
    const QString sharedTail = shared.isEmpty() ? QString() : tr(" · %1").arg(shared.toHtmlEscaped());
    qkv[stepQUnrotated]->setCaption(tr("<i>Q</i> before the turn"));
    qkv[stepKUnrotated]->setCaption(tr("<i>K</i> before the turn") + sharedTail);
    q->setCaption(rotary ? tr("<i>Q</i>′ turned by position") : tr("<i>Q</i>"));
    qkv[stepK]->setCaption((rotary ? tr("<i>K</i>′ turned by position") : tr("<i>K</i>")) + sharedTail);
    v->setCaption(tr("<i>V</i>") + sharedTail);

    // 4 · scale: hidden when skipped.
    m_steps[3].blocks.front()->setVisible(!skipped);

    // 6 · weighted values of the selected query
    m_steps[5].blocks.front()->setCaption(render::StepWording::queryName(query, tokenName(*trace, query)).toHtmlEscaped());

    // 7 · sum → Z, and the projection when there is one.
    m_steps[6].blocks[1]->setVisible(render::StepWording::hasProjection(model));

    // A screen reader names each table by its step and caption; a caption's HTML is read again only
    // when it or the title changed.
    for (StepWidgets& s : m_steps)
        for (std::size_t i = 0; i < s.blocks.size(); ++i) {
            const auto* caption = s.blocks[i]->findChild<QLabel*>(QString(), Qt::FindDirectChildrenOnly);
            if (!caption)
                continue;
            QString named = s.title->text() + QChar::Null + caption->text();
            if (s.named[i] == named)
                continue;
            s.named[i] = std::move(named);
            s.blocks[i]->table()->setAccessibleName(
                tr("%1: %2").arg(s.title->text(), QTextDocumentFragment::fromHtml(caption->text()).toPlainText()));
        }
}

}  // namespace ui
