#include "ui/views/model/instrumentview.h"

#include "ui/document/document.h"
#include "ui/i18n/language.h"
#include "ui/render/atomicwrite.h"
#include "ui/render/displaynumber.h"
#include "ui/render/heatmapexport.h"
#include "ui/views/widgets/inlinemessage.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QToolTip>
#include <QVBoxLayout>

namespace ui {

namespace {

/** The share of the preferred size the figure may shrink to before the view scrolls. */
constexpr double shrinkable = 0.9;

QString number(double v)
{
    return render::displayNumber(v, 'f', 3, render::Minus::Typographic);
}

QString percent(double p)
{
    return InstrumentView::tr("%1 %").arg(render::displayPercentage(p, QLocale()));
}

}  // namespace

/** The figure, scaled to the room it has (never below shrinkable of its size: the scroll area scrolls then). */
class InstrumentView::Canvas : public QWidget {
public:
    explicit Canvas(InstrumentView* view) : m_view(view)
    {
        setObjectName(QStringLiteral("instrumentCanvas"));
        setMouseTracking(true);
    }
    QSize sizeHint() const override
    {
        return m_view->m_painter ? m_view->m_painter->preferredSize() : QSize(200, 100);
    }
    QSize minimumSizeHint() const override
    {
        return m_view->m_painter ? sizeHint() * shrinkable : QSize(0, 0);
    }
    std::optional<render::GridFigurePainter::Cell> cellAt(QPointF point) const
    {
        return m_view->m_painter ? m_view->m_painter->cellAt(QRectF(rect()), point) : std::nullopt;
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.fillRect(rect(), palette().color(QPalette::Base));
        if (m_view->m_painter) {
            p.setRenderHint(QPainter::Antialiasing);
            m_view->m_painter->paint(&p, QRectF(rect()));
        }
    }
    bool event(QEvent* event) override
    {
        if (event->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(event);
            const auto cell = cellAt(help->pos());
            if (cell)
                QToolTip::showText(help->globalPos(), m_view->cellText(cell->row, cell->column), this);
            else
                QToolTip::hideText();
            return true;
        }
        return QWidget::event(event);
    }
    void contextMenuEvent(QContextMenuEvent* event) override
    {
        if (!m_view->m_painter)
            return;
        QMenu menu(this);
        menu.addAction(InstrumentView::tr("Save Image…"), m_view, [this] { m_view->saveDialog(false); });
        menu.addAction(InstrumentView::tr("Save Numbers…"), m_view, [this] { m_view->saveDialog(true); });
        menu.exec(event->globalPos());
    }
    void mousePressEvent(QMouseEvent* event) override
    {
        if (event->button() == Qt::LeftButton)
            if (const auto cell = cellAt(event->position()))
                m_view->cellClicked(cell->row, cell->column);
    }

private:
    InstrumentView* m_view;
};

InstrumentView::InstrumentView(Document* document, Instrument which, QWidget* parent)
    : QWidget(parent), m_document(document), m_which(which), m_target(new QComboBox), m_refusal(new InlineMessage),
      m_summary(new QLabel), m_empty(new QLabel), m_scroll(new QScrollArea), m_canvas(new Canvas(this))
{
    const bool lens = which == Instrument::Lens;
    setObjectName(lens ? QStringLiteral("lensView") : QStringLiteral("attributionView"));
    m_target->setObjectName(QStringLiteral("instrumentTarget"));
    m_target->setEditable(true);
    m_target->setInsertPolicy(QComboBox::NoInsert);
    m_target->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_target->setMinimumContentsLength(12);
    m_summary->setObjectName(QStringLiteral("instrumentSummary"));
    m_summary->setWordWrap(true);
    m_empty->setObjectName(QStringLiteral("instrumentEmpty"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_scroll->setWidget(m_canvas);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);

    auto* targetLabel = new QLabel;
    targetLabel->setBuddy(m_target);
    auto* top = new QHBoxLayout;
    top->addWidget(targetLabel);
    top->addWidget(m_target, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->setSpacing(6);
    layout->addLayout(top);
    layout->addWidget(m_refusal);
    layout->addWidget(m_summary);
    layout->addWidget(m_scroll, 1);
    layout->addWidget(m_empty, 1);

    connect(m_target, &QComboBox::activated, this, [this](int index) {
        const QVariant id = m_target->itemData(index);
        m_refusal->showMessage(QString());
        m_document->setInstrumentTarget(id.isValid() ? id.toInt() : -1);
    });
    connect(m_target->lineEdit(), &QLineEdit::returnPressed, this, [this] {
        // a candidate's text is taken by activated(); anything else typed is read as one token
        if (m_target->findText(m_target->currentText()) < 0)
            chooseTarget(m_target->currentText());
    });
    connect(document, &Document::instrumentsChanged, this, &InstrumentView::showResult);
    connect(document, &Document::predictionChanged, this, &InstrumentView::syncCandidates);
    connect(document, &Document::instrumentTargetChanged, this, [this](int id) {
        if (id < 0) {
            const QSignalBlocker block(m_target);
            m_target->setCurrentIndex(0);
            m_target->setEditText(m_target->itemText(0));
        }
    });
    i18n::onLanguageChange(this, [this, targetLabel, lens] {
        targetLabel->setText(tr("&Target token"));
        m_target->setToolTip(tr("The token whose probability (lens) or logit (attribution) is followed: the most "
                                "probable next token, a Next Token candidate, or any one token typed (or #id)"));
        m_canvas->setAccessibleName(lens ? tr("Logit lens") : tr("Direct logit attribution"));
        syncCandidates();
        showResult();
    });
}

InstrumentView::~InstrumentView() = default;

QWidget* InstrumentView::canvas() const
{
    return m_canvas;
}

void InstrumentView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (!m_document)
        return;
    m_document->setInstrumentShown(m_which, true);
    showResult();
}

void InstrumentView::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    if (m_document)
        m_document->setInstrumentShown(m_which, false);
}

void InstrumentView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange)
        showResult();
}

bool InstrumentView::chooseTarget(const QString& text)
{
    QString why;
    const std::optional<int> id = m_document->singleToken(text, &why);
    if (!id) {
        m_refusal->showMessage(tr("“%1” cannot be the target: %2").arg(text, why));
        return false;
    }
    m_refusal->showMessage(QString());
    m_document->setInstrumentTarget(*id);
    return true;
}

QString InstrumentView::refusal() const
{
    return m_refusal->message();
}

QString InstrumentView::summary() const
{
    return m_summary->isHidden() ? QString() : m_summary->text();
}

QString InstrumentView::emptyText() const
{
    return m_empty->isHidden() ? QString() : m_empty->text();
}

void InstrumentView::syncCandidates()
{
    const ModelSession* session = m_document->modelSession();
    if (m_target->view()->isVisible())
        return;  // the list open stays as it is; the next prediction brings the new one
    const QString typed = m_target->currentText();
    const bool editing = m_target->lineEdit()->hasFocus();
    const QSignalBlocker block(m_target);
    m_target->clear();
    m_target->addItem(tr("the most probable next token"));
    if (session)
        for (const Prediction::Entry& e : session->prediction().entries)
            m_target->addItem(QString::fromStdString(e.token), e.id);
    m_target->setEnabled(session != nullptr);
    const int target = m_document->instrumentTarget();
    const int index = target < 0 ? 0 : m_target->findData(target);
    if (editing)
        m_target->setEditText(typed);  // what is being typed stays
    else if (index >= 0)
        m_target->setCurrentIndex(index);
    else
        m_target->setEditText(typed);  // a token typed that is no candidate
}

void InstrumentView::showResult()
{
    const bool lens = m_which == Instrument::Lens;
    const bool model = m_document->isModelSession();
    m_lens = lens ? m_document->lens() : nullptr;
    m_attribution = lens ? nullptr : m_document->attribution();
    const bool have = lens ? bool(m_lens) : bool(m_attribution);
    m_painter.reset();
    if (have) {
        render::GridFigure figure;
        if (lens) {
            const LensResult& r = *m_lens;
            figure = render::lensFigure(r.cells, r.tokens, [&r](int id) { return r.names.value(id); });
            m_summary->setText(r.target < 0
                ? tr("What the model would predict after each token if it stopped after each layer (its own "
                     "prediction last).")
                : tr("What the model would predict after each token if it stopped after each layer (its own "
                     "prediction last). Hover a cell for the probability of “%1” there.")
                      .arg(r.targetToken));
        } else {
            const AttributionResult& r = *m_attribution;
            figure = render::attributionFigure(r.parts, QStringLiteral("“%1”").arg(r.targetToken));
            m_summary->setText(
                tr("The logit of “%1” after token %2 “%3” is %4: the embeddings give %5, the heads %6, the MLPs %7 "
                   "and the biases %8.")
                    .arg(r.targetToken)
                    .arg(r.parts.position + 1)
                    .arg(r.positionToken, number(r.parts.logit), number(r.parts.embeddings), number(r.headsTotal),
                         number(r.mlpsTotal), number(r.parts.bias)));
        }
        m_painter = std::make_unique<render::GridFigurePainter>(std::move(figure),
                                                                 render::GridFigureStyle{font(), palette()});
    } else if (!model) {
        m_empty->setText(lens ? tr("The logit lens shows what a model would predict after each of its layers. "
                                   "File › Open Model… opens one (or the built-in model).")
                              : tr("Direct logit attribution shows how much each head and MLP of a model adds to "
                                   "the logit of a token. File › Open Model… opens one (or the built-in model)."));
    } else if (m_document->modelSession()->isRunning() || m_document->modelSession()->prediction().position < 0) {
        m_empty->setText(tr("Computing…"));
    } else {
        m_empty->setText(tr("There is no token to attribute: the model's logits overflowed (see Next Token)."));
    }
    m_summary->setVisible(have);
    m_scroll->setVisible(have);
    m_empty->setVisible(!have);
    m_canvas->updateGeometry();
    m_canvas->update();
}

QRectF InstrumentView::cellRect(int row, int column) const
{
    return m_painter ? m_painter->cellRect(QRectF(m_canvas->rect()), {0, row, column}) : QRectF();
}

QString InstrumentView::cellText(int row, int column) const
{
    if (m_lens) {
        const LensResult& r = *m_lens;
        const core::LensCell& cell = r.cells.at(std::size_t(row)).at(std::size_t(column));
        const int layers = int(r.cells.size()) - 1;
        const QString where = row == 0 ? tr("The embeddings") : row == layers ? tr("The model's output")
                                                                              : tr("After layer %1").arg(row);
        QString text = tr("%1, after token %2 “%3”:").arg(where).arg(column + 1).arg(r.tokens.value(column));
        if (cell.id < 0)
            return text + QLatin1Char('\n') + tr("the logits are not finite here");
        text += QLatin1Char('\n') + tr("predicts “%1” with probability %2").arg(r.names.value(cell.id), percent(cell.probability));
        if (r.target >= 0)
            text += QLatin1Char('\n') + tr("“%1”: probability %2, rank %3")
                                            .arg(r.targetToken, percent(cell.targetProbability))
                                            .arg(cell.targetRank);
        return text;
    }
    if (m_attribution) {
        const AttributionResult& r = *m_attribution;
        const auto& heads = r.parts.heads.at(std::size_t(row));
        const bool mlp = column >= int(heads.size());
        const double share = mlp ? r.parts.mlps.at(std::size_t(row)) : heads.at(std::size_t(column));
        const ModelSession* session = m_document->modelSession();
        QString what = mlp ? tr("Layer %1, MLP").arg(row + 1) : tr("Layer %1, head %2").arg(row + 1).arg(column + 1);
        if (!mlp && session && session->isAblated(row, column))
            what += QLatin1Char(' ') + tr("(zeroed)");
        return what + QLatin1Char('\n')
            + tr("adds %1 to the logit of “%2” after token %3 (%4 in all)")
                  .arg(number(share), r.targetToken)
                  .arg(r.parts.position + 1)
                  .arg(number(r.parts.logit))
            + QLatin1Char('\n') + tr("(its output there, through the final norm at the whole stream's scale, dotted "
                                     "with the token's unembedding)");
    }
    return {};
}

render::ExportResult InstrumentView::save(const QString& path) const
{
    if (!m_painter)
        return render::ExportResult::failed(tr("There is nothing to save yet."));
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("json") || suffix == QLatin1String("csv")) {
        const std::string text = m_document->instrumentFile(m_which, suffix == QLatin1String("csv"));
        QString error;
        if (!render::writeAtomically(path, QByteArray::fromStdString(text), &error))
            return render::ExportResult::failed(error);
        return {true, path, 0, QString()};
    }
    // on white, in black, as the command line draws it
    QPalette palette;
    palette.setColor(QPalette::Base, Qt::white);
    palette.setColor(QPalette::Text, Qt::black);
    const render::GridFigurePainter painter(m_painter->figure(), render::GridFigureStyle{font(), palette});
    QSize size = painter.preferredSize();
    if (suffix == QLatin1String("png"))
        size *= 2;
    return render::exportFigure([&painter](QPainter* p, const QRectF& target) { painter.paint(p, target); }, Qt::white,
                                painter.title(), path, size);
}

void InstrumentView::saveDialog(bool data)
{
    const QString base = m_which == Instrument::Lens ? QStringLiteral("logit-lens") : QStringLiteral("attribution");
    const QStringList filters = data ? QStringList{tr("JSON (*.json)"), tr("CSV table (*.csv)")}
                                     : QStringList{tr("PNG image (*.png)"), tr("SVG drawing (*.svg)"), tr("PDF document (*.pdf)")};
    const QStringList endings = data ? QStringList{QStringLiteral(".json"), QStringLiteral(".csv")}
                                     : QStringList{QStringLiteral(".png"), QStringLiteral(".svg"), QStringLiteral(".pdf")};
    QString filter = filters.first();
    QString path = QFileDialog::getSaveFileName(this, data ? tr("Save Numbers") : tr("Save Image"),
                                                QDir::home().filePath(base + endings.first()),
                                                filters.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty())
        return;
    if (!endings.contains(QLatin1Char('.') + QFileInfo(path).suffix().toLower()))
        path += endings.value(filters.indexOf(filter), endings.first());
    const render::ExportResult result = save(path);
    if (!result.written)
        QMessageBox::warning(this, data ? tr("Save Numbers") : tr("Save Image"), result.error);
}

void InstrumentView::cellClicked(int row, int column)
{
    if (m_lens) {
        m_document->setPredictionPosition(column + 1 == m_lens->tokens.size() ? -1 : column);
        if (row > 0)  // the row after layer ℓ shows layer ℓ; the embeddings' row no layer
            emit cellChosen(row - 1, -1);
    } else if (m_attribution && column < int(m_attribution->parts.heads.at(std::size_t(row)).size())) {
        emit cellChosen(row, column);
    }
}

}  // namespace ui
