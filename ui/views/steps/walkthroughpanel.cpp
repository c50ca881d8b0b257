#include "ui/views/steps/walkthroughpanel.h"

#include "ui/render/stepfigure.h"

#include "ui/views/widgets/querychooser.h"
#include "ui/views/widgets/wrappedlabel.h"
#include "ui/render/cellstyle.h"
#include "ui/i18n/language.h"
#include "ui/document/document.h"
#include "ui/render/stepfigure.h"
#include "ui/document/steptablemodel.h"
#include "ui/document/viewstate.h"
#include "ui/render/stepwording.h"

#include <QClipboard>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDockWidget>
#include <QGuiApplication>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

namespace ui {

namespace {

/** The right-hand side of a derivation's text: "score(1,2) = q₁·k₂ = …" → "q₁·k₂ = …", also when the
 *  name carries its head ("score(1,2) [head 2] = …"). */
QString arithmetic(const core::Derivation& d, int precision)
{
    const QString text = QString::fromStdString(d.text(precision));
    const QString name = QString::fromStdString(d.name);
    const qsizetype equals = text.indexOf(QStringLiteral(" = "));
    const bool named = text.startsWith(name) && equals >= 0;
    return localizedDerivation((named ? text.mid(equals + 3) : text).toStdString());
}

/** A row of numbers as "[a, −b, c]", at most maxShown of them. */
QString vectorText(const core::RowVector& v, int precision)
{
    constexpr int maxShown = 8;
    QStringList parts;
    for (Eigen::Index c = 0; c < v.size() && c < maxShown; ++c)
        parts << QString::fromStdString(core::formatNumber(v(c), precision));
    if (v.size() > maxShown)
        parts << WalkthroughPanel::tr("… %1 more").arg(v.size() - maxShown);
    return minusSigns(QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']'));  // "−" as in the arithmetic
}

QLabel* cell(const QString& text, QWidget* parent, const QString& tip = QString(), bool right = false)
{
    // A narrow dock wraps the arithmetic at its spaces and after each "·" (a zero-width space there), never
    // inside a number (a word joiner after its point, where Qt would break): a product "(−0.1424)·(−0.1818)" wider
    // than the column was once cut into "(−0.1424)·(−0." and "1818)".
    static const QRegularExpression point(QStringLiteral("(\\d)\\.(\\d)"));
    auto* label = new WrappedLabel(
        QString(text).replace(QStringLiteral("·"), QStringLiteral("·\u200B")).replace(point, QStringLiteral("\\1.\u2060\\2")),
        parent);
    label->setTextFormat(Qt::PlainText);
    label->setToolTip(tip);
    if (right)
        label->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return label;
}

QLabel* heading(const QString& html, QWidget* parent)
{
    auto* label = new WrappedLabel(html, parent);
    label->setTextFormat(Qt::RichText);
    QFont f = label->font();
    f.setBold(true);
    label->setFont(f);
    return label;
}

/** With rotary positions: step 2's turn for query i of head h and each key it may read, before → after, each
 *  "after" with the arithmetic of its first cells on hover. Adds its lines to `lines`. */
void addTurnTable(QVBoxLayout* column, QWidget* page, const core::Trace& trace, int h, int i, int precision,
                  QStringList& lines)
{
    const core::AttentionModel& model = *trace.model;
    const core::HeadTrace& ht = trace.heads[std::size_t(h)];
    const QString title = WalkthroughPanel::tr("%1: turned by position").arg(render::StepWording::numberedTitle(2, model));
    column->addWidget(heading(title.toHtmlEscaped(), page));
    lines << title;
    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(4);
    const QStringList header{QString(), WalkthroughPanel::tr("before the turn"), WalkthroughPanel::tr("after the turn")};
    for (int c = 0; c < header.size(); ++c)
        grid->addWidget(heading(header[c].toHtmlEscaped(), page), 0, c);
    lines << header.join(QLatin1Char('\t'));
    const auto addRow = [&](int row, const QString& name, core::Step step, int token, const core::Matrix& before,
                            const core::Matrix& after) {
        QStringList tips;
        for (int c = 0; c < int(after.cols()) && c < 4; ++c)
            tips << QString::fromStdString(core::derive(trace, {step, h, token, c}).text(precision));
        const QStringList line{name, vectorText(before.row(token), precision), vectorText(after.row(token), precision)};
        grid->addWidget(cell(line[0], page), row, 0);
        grid->addWidget(cell(line[1], page), row, 1);
        grid->addWidget(cell(line[2], page, derivationTip(tips.join(QLatin1Char('\n')).toStdString())),
                        row, 2);
        lines << line.join(QLatin1Char('\t'));
    };
    const auto named = [](const char* letter, int token) {
        const QString name = QString::fromUtf8(letter) + QString::fromStdString(core::subscript(token + 1));
        return WalkthroughPanel::tr("%1 (position %2)").arg(name).arg(token);
    };
    addRow(1, named("q", i), core::Step::Queries, i, ht.queriesUnrotated, ht.queries);
    // The keys the query reads: every one, or those up to it under the causal mask.
    const int keys = std::min(model.options.mask == core::Mask::Causal ? i + 1 : trace.n(), WalkthroughPanel::maxKeys);
    for (int j = 0; j < keys; ++j)
        addRow(2 + j, named("k", j), core::Step::Keys, j, ht.keysUnrotated, ht.keys);
    column->addLayout(grid);
}

}  // namespace

WalkthroughPanel::WalkthroughPanel(Document* document, ViewState* view, QWidget* parent)
    : QWidget(parent), m_document(document), m_view(view),
      m_weighted(StepTableModel::weightedValues(document, view, this)), m_query(new QComboBox(this)),
      m_precision(new QSpinBox(this)), m_scroll(new QScrollArea(this))
{
    auto* bar = new QHBoxLayout;
    auto* queryLabel = new QLabel(this);
    queryLabel->setBuddy(m_query);
    auto* precisionLabel = new QLabel(this);
    precisionLabel->setBuddy(m_precision);
    m_precision->setRange(0, 6);
    m_precision->setValue(4);
    bar->addWidget(queryLabel);
    bar->addWidget(m_query, 1);
    bar->addSpacing(8);
    bar->addWidget(precisionLabel);
    bar->addWidget(m_precision);

    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_scroll, 1);

    connect(m_query, &QComboBox::activated, this, [this](int index) { m_view->setSelectedQuery(index); });
    connect(m_precision, &QSpinBox::valueChanged, this, [this](int decimals) {
        m_weighted->setPrecision(decimals);
        rebuild();
    });
    m_weighted->setPrecision(m_precision->value());
    // The weighted values model follows the trace, the head and the query; rebuild after it.
    connect(m_weighted, &QAbstractItemModel::modelReset, this, &WalkthroughPanel::rebuild);
    connect(m_weighted, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex&, const QModelIndex&, const QList<int>& roles) {
                if (roles.isEmpty())
                    rebuild();
            });
    i18n::onLanguageChange(this, [this, queryLabel, precisionLabel] {
        queryLabel->setText(tr("&Query"));
        precisionLabel->setText(tr("&Decimals"));
        m_query->setToolTip(tr("The query token to work through"));
        m_scroll->setAccessibleName(tr("Walkthrough of one query"));
        rebuild();
    });
}

void WalkthroughPanel::rebuild()
{
    // Hidden (a tab behind the steps, a closed dock): build when shown, not on every edit.
    if (!isVisible() || !m_inView) {
        m_stale = true;
        return;
    }
    build();
}

void WalkthroughPanel::build()
{
    m_stale = false;
    const auto trace = m_weighted->trace();
    const int n = trace ? trace->n() : 0;
    const int precision = m_precision->value();

    syncQueryCombo(m_query, trace.get(), m_weighted->query());

    auto* page = new QWidget;
    auto* column = new QVBoxLayout(page);
    QStringList lines;
    if (!trace || n == 0) {
        const QString why = m_document->error().isEmpty() ? tr("Computing…") : m_document->error();
        column->addWidget(cell(why, page));
        column->addStretch();
        m_plainText = why;
        m_scroll->setWidget(page);
        return;
    }

    const int i = m_weighted->query(), h = m_weighted->head();
    const core::AttentionModel& model = *trace->model;
    const QString query = QString::fromStdString(model.tokens[std::size_t(i)]);
    const QString sub = QString::fromStdString(core::subscript(i + 1));
    const bool scaled = model.options.scale || model.options.temperature != 1.0;

    auto* intro = new WrappedLabel(tr("Query %1 “%2”%3: how its output row <i>z</i><sub>%1</sub> is made.")
                                 .arg(i + 1)
                                 .arg(query.toHtmlEscaped())
                                 .arg(trace->headCount() > 1 ? tr(", head %1").arg(h + 1) : QString()),
                             page);
    column->addWidget(intro);
    lines << intro->text();
    const core::HeadTrace& ht = trace->heads[std::size_t(h)];
    if (model.options.positionalEncoding == core::PositionalEncoding::Rotary && ht.queriesUnrotated.rows() == n)
        addTurnTable(column, page, *trace, h, i, precision, lines);

    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(10);  // five columns in a dock of 400 px: every one shown, none scrolled to
    grid->setVerticalSpacing(4);
    // Each column is one step, numbered and titled as the steps panel does, above its formula for this query.
    QStringList header{tr("key j")};
    int col = 0;
    grid->addWidget(heading(tr("key <i>j</i>"), page), 0, col++);
    auto addHeading = [&](int step, const QString& formula) {
        header << render::StepWording::numberedTitle(step, model);
        grid->addWidget(heading(header.back().toHtmlEscaped() + QStringLiteral("<br>") + formula, page), 0, col++);
    };
    addHeading(3, tr("score = <i>q</i><sub>%1</sub>·<i>k</i><sub>j</sub>").arg(i + 1));
    if (scaled)
        addHeading(4, model.options.scale ? tr("scaled ÷ √<i>d</i><sub>k</sub>") : tr("scaled ÷ <i>T</i>"));
    addHeading(5, tr("<i>w</i><sub>%1j</sub>").arg(i + 1));  // the heading above says "Softmax" already
    addHeading(6, tr("<i>w</i><sub>%1j</sub> · <i>v</i><sub>j</sub>").arg(i + 1));
    lines << header.join(QLatin1Char('\t'));

    const int shown = std::min(n, maxKeys);
    for (int j = 0; j < shown; ++j) {
        const int row = j + 1;
        col = 0;
        const QString key = tr("%1 “%2”").arg(j + 1).arg(QString::fromStdString(model.tokens[std::size_t(j)]));
        QStringList line{key};
        grid->addWidget(cell(key, page), row, col++);

        const core::Derivation score = core::derive(*trace, {core::Step::Scores, h, i, j});
        line << arithmetic(score, precision);
        grid->addWidget(cell(line.back(), page, derivationTip(score.text(precision))), row, col++);
        if (scaled) {
            const core::Derivation s = core::derive(*trace, {core::Step::ScaledScores, h, i, j});
            line << arithmetic(s, precision);
            grid->addWidget(cell(line.back(), page, derivationTip(s.text(precision))), row, col++);
        }
        const core::Derivation w = core::derive(*trace, {core::Step::Weights, h, i, j});
        line << formatCell(w.value, precision);
        grid->addWidget(cell(line.back(), page, derivationTip(w.text(precision)), true), row, col++);

        core::RowVector weighted(m_weighted->columnCount());
        for (int c = 0; c < m_weighted->columnCount(); ++c)
            weighted(c) = m_weighted->index(j, c).data(ValueRole).toDouble();
        line << tr("%1 × %2 = %3")
                    .arg(QString::fromStdString(core::formatNumber(ht.weights(i, j), precision)), vectorText(ht.values.row(j), precision),
                         vectorText(weighted, precision));
        grid->addWidget(cell(line.back(), page,
                             tr("w(%1,%2) · v%3: the value of key %2, weighted by how much query %1 attends to it")
                                 .arg(i + 1)
                                 .arg(j + 1)
                                 .arg(QString::fromStdString(core::subscript(j + 1)))),
                        row, col++);
        if (w.masked) {
            // The causal mask hides this key from the query: its row is greyed and says why.
            const QString why = maskedCellNote(i + 1, j + 1);
            for (int c = 0; c < col; ++c)
                if (auto* label = qobject_cast<QLabel*>(grid->itemAtPosition(row, c)->widget())) {
                    label->setForegroundRole(QPalette::PlaceholderText);
                    label->setToolTip(label->toolTip().isEmpty() ? why : why + QLatin1Char('\n') + label->toolTip());
                }
            auto* key = qobject_cast<QLabel*>(grid->itemAtPosition(row, 0)->widget());
            key->setText(tr("%1 (masked)").arg(key->text()));
            line[0] = key->text();
        }
        lines << line.join(QLatin1Char('\t'));
    }
    if (n > shown) {
        const QString more = tr("… and %1 more keys").arg(n - shown);
        grid->addWidget(cell(more, page), shown + 1, 0, 1, -1);
        lines << more;
    }
    column->addLayout(grid);

    const QString sum = tr("%1: z%2 = Σⱼ w%2ⱼ·vⱼ = %3")
                            .arg(render::StepWording::numberedTitle(7, model), sub, vectorText(ht.outputs.row(i), precision));
    auto* total = heading(sum.toHtmlEscaped(), page);
    total->setToolTip(tr("Row %1 of Z, the output of this head for “%2”").arg(i + 1).arg(query));
    column->addWidget(total);
    lines << sum;
    column->addStretch();

    m_plainText = lines.join(QLatin1Char('\n'));
    m_scroll->setWidget(page);
}

QString WalkthroughPanel::plainText() const
{
    if (m_stale)
        const_cast<WalkthroughPanel*>(this)->build();
    return m_plainText;
}

bool WalkthroughPanel::event(QEvent* event)
{
    // A tab behind another in a dock area stays "visible" to Qt; its dock says when it is in view.
    if (event->type() == QEvent::ParentChange) {
        if (auto* dock = qobject_cast<QDockWidget*>(parentWidget()); dock && dock != m_dock) {
            if (m_dock)
                disconnect(m_dock, nullptr, this, nullptr);
            m_dock = dock;
            connect(dock, &QDockWidget::visibilityChanged, this, [this](bool inView) {
                m_inView = inView;
                if (inView && m_stale)
                    rebuild();
            });
        }
    }
    return QWidget::event(event);
}

void WalkthroughPanel::showEvent(QShowEvent* event)
{
    if (m_stale)
        rebuild();
    QWidget::showEvent(event);
}

void WalkthroughPanel::contextMenuEvent(QContextMenuEvent* event)
{
    QMenu menu(this);
    menu.addAction(tr("&Copy the walkthrough"), this, [this] { QGuiApplication::clipboard()->setText(plainText()); });
    menu.exec(event->globalPos());
}

}  // namespace ui
