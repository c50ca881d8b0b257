#include "ui/views/model/predictionpanel.h"

#include "ui/document/document.h"
#include "ui/i18n/language.h"
#include "ui/render/displaynumber.h"
#include "ui/views/widgets/flowlayout.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QPushButton>
#include <QSpinBox>
#include <QHBoxLayout>
#include <QEvent>
#include <QFontMetrics>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cstdint>
#include <limits>
#include <vector>

namespace ui {

namespace {

constexpr int rows = 10;

/** A probability as a percentage, in the interface's number format, with extraDecimals more than it needs alone. */
QString percent(double p, int extraDecimals = 0)
{
    return PredictionPanel::tr("%1 %").arg(render::displayPercentage(p, QLocale(), extraDecimals));
}

}  // namespace

PredictionPanel::PredictionPanel(Document* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_position(new QComboBox), m_status(new QLabel),
      m_table(new QTableWidget(rows, 4)), m_empty(new QLabel), m_write(new QWidget), m_append(new QPushButton),
      m_appendTen(new QPushButton), m_stop(new QPushButton), m_sample(new QCheckBox), m_samplingBoxes(new QWidget),
      m_temperature(new QDoubleSpinBox), m_topK(new QSpinBox), m_topP(new QDoubleSpinBox), m_seed(new QSpinBox),
      m_writeStatus(new QLabel)
{
    setObjectName(QStringLiteral("predictionPanel"));
    m_position->setObjectName(QStringLiteral("predictionPosition"));
    m_position->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_position->setMinimumContentsLength(12);
    m_status->setObjectName(QStringLiteral("predictionStatus"));
    m_status->setWordWrap(true);
    m_empty->setObjectName(QStringLiteral("predictionEmpty"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_table->setObjectName(QStringLiteral("predictionTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->verticalHeader()->hide();
    // Sized by fitColumns(): a token column stretched to the room left was cut ("␣dep…") in a narrow dock.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideNone);
    m_table->viewport()->installEventFilter(this);

    // Append: the model writes, as --generate does (core::Sampling; the defaults are the command line's but the
    // temperature, which Sample sets to 1).
    m_append->setObjectName(QStringLiteral("appendButton"));
    m_appendTen->setObjectName(QStringLiteral("appendTenButton"));
    m_stop->setObjectName(QStringLiteral("appendStopButton"));
    m_stop->hide();
    m_sample->setObjectName(QStringLiteral("appendSample"));
    m_temperature->setObjectName(QStringLiteral("appendTemperature"));
    m_temperature->setRange(0.01, 10);
    m_temperature->setDecimals(2);
    m_temperature->setSingleStep(0.1);
    m_temperature->setValue(1);
    m_topK->setObjectName(QStringLiteral("appendTopK"));
    m_topK->setRange(0, 1000000);
    m_topP->setObjectName(QStringLiteral("appendTopP"));
    m_topP->setRange(0.01, 1);
    m_topP->setDecimals(2);
    m_topP->setSingleStep(0.05);
    m_topP->setValue(1);
    m_seed->setObjectName(QStringLiteral("appendSeed"));
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_writeStatus->setObjectName(QStringLiteral("appendStatus"));
    m_writeStatus->setWordWrap(true);
    const auto labelFor = [](QWidget* box) {
        auto* label = new QLabel;
        label->setBuddy(box);
        return label;
    };
    QLabel* temperatureLabel = labelFor(m_temperature);
    QLabel* topKLabel = labelFor(m_topK);
    QLabel* topPLabel = labelFor(m_topP);
    QLabel* seedLabel = labelFor(m_seed);
    auto* buttons = new FlowLayout;
    buttons->addWidget(m_append);
    buttons->addWidget(m_appendTen);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_sample);
    auto* boxes = new FlowLayout(m_samplingBoxes);
    boxes->setContentsMargins(0, 0, 0, 0);
    boxes->addWidget(FlowLayout::group({temperatureLabel, m_temperature}, 4));
    boxes->addWidget(FlowLayout::group({topKLabel, m_topK}, 4));
    boxes->addWidget(FlowLayout::group({topPLabel, m_topP}, 4));
    boxes->addWidget(FlowLayout::group({seedLabel, m_seed}, 4));
    auto* write = new QVBoxLayout(m_write);
    write->setContentsMargins(0, 0, 0, 0);
    write->setSpacing(4);
    write->addLayout(buttons);
    write->addWidget(m_samplingBoxes);
    write->addWidget(m_writeStatus);

    auto* positionLabel = new QLabel;
    positionLabel->setBuddy(m_position);
    auto* top = new QHBoxLayout;
    top->addWidget(positionLabel);
    top->addWidget(m_position, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->setSpacing(6);
    layout->addLayout(top);
    layout->addWidget(m_status);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_write);
    layout->addWidget(m_empty, 1);

    connect(m_append, &QPushButton::clicked, this, [this] { m_document->appendTokens(1); });
    connect(m_appendTen, &QPushButton::clicked, this, [this] { m_document->appendTokens(10); });
    connect(m_stop, &QPushButton::clicked, m_document, &Document::stopAppending);
    connect(m_sample, &QCheckBox::toggled, this, &PredictionPanel::applySampling);
    connect(m_temperature, &QDoubleSpinBox::valueChanged, this, &PredictionPanel::applySampling);
    connect(m_topK, &QSpinBox::valueChanged, this, &PredictionPanel::applySampling);
    connect(m_topP, &QDoubleSpinBox::valueChanged, this, &PredictionPanel::applySampling);
    connect(m_seed, &QSpinBox::valueChanged, this, &PredictionPanel::applySampling);
    connect(document, &Document::appendingChanged, this, &PredictionPanel::syncWrite);
    connect(document, &Document::tokenTextChanged, this, &PredictionPanel::syncWrite);

    connect(m_position, &QComboBox::activated, this,
            [this](int index) { m_document->setPredictionPosition(index == 0 ? -1 : index - 1); });
    connect(document, &Document::modelChanged, this, [this](const ModelChange& change) {
        if (change.kind == ModelChange::Kind::Model)
            applySampling();  // a model opened takes the sampling shown
        if (change.kind == ModelChange::Kind::Model || change.kind == ModelChange::Kind::Tokens)
            syncPositions();
    });
    connect(document, &Document::predictionPositionChanged, this, &PredictionPanel::showChosenPosition);
    connect(document, &Document::predictionChanged, this, &PredictionPanel::showPrediction);
    i18n::onLanguageChange(this, [this, positionLabel, temperatureLabel, topKLabel, topPLabel, seedLabel] {
        positionLabel->setText(tr("&Next token after"));
        m_table->setHorizontalHeaderLabels({tr("#"), tr("Token"), tr("Probability"), tr("Change")});
        m_table->setAccessibleName(tr("The ten most probable next tokens"));
        m_empty->setText(tr("A model's next token shows here: File › Open Model… opens a GPT-2 checkpoint folder."));
        m_append->setText(tr("&Append"));
        m_append->setToolTip(tr("Append the token the model chooses to the text (Ctrl+Return); Undo takes it back"));
        m_appendTen->setText(tr("Append 1&0"));
        m_appendTen->setToolTip(tr("Append ten tokens, each chosen after the one before, as one undo step "
                                   "(Ctrl+Shift+Return)"));
        m_stop->setText(tr("Stop"));
        m_sample->setText(tr("Sample"));
        m_sample->setToolTip(tr("Off: the most probable token (greedy). On: drawn from the probabilities with the "
                                "temperature, top-k, top-p and seed below, as --generate does"));
        temperatureLabel->setText(tr("Temperature"));
        topKLabel->setText(tr("Top-k"));
        m_topK->setSpecialValueText(tr("all"));
        topPLabel->setText(tr("Top-p"));
        seedLabel->setText(tr("Seed"));
        m_seed->setToolTip(tr("The same seed, options and text give the same tokens again, here and with "
                              "--generate N --seed"));
        syncWrite();
        syncPositions();
        showPrediction();
    });
}

QString PredictionPanel::status() const
{
    return m_status->text();
}

QString PredictionPanel::writeStatus() const
{
    return m_writeStatus->text();
}

void PredictionPanel::applySampling()
{
    const bool sample = m_sample->isChecked();
    m_samplingBoxes->setVisible(sample);
    core::Sampling s;
    if (sample) {
        s.temperature = m_temperature->value();
        s.topK = m_topK->value();
        s.topP = m_topP->value();
        s.seed = std::uint64_t(m_seed->value());
    }
    m_document->setSampling(s);
    syncWrite();
}

void PredictionPanel::syncWrite()
{
    const ModelSession* session = m_document->modelSession();
    const bool appending = m_document->isAppending();
    m_write->setVisible(session != nullptr);
    m_append->setEnabled(session && !appending);
    m_appendTen->setEnabled(session && !appending);
    m_stop->setVisible(appending);
    if (!session)
        return;
    const core::Sampling& s = session->sampling();
    // Greedy needs no line; sampling says where the seed's stream is, the k-th token of --generate with its seed.
    m_writeStatus->setVisible(appending || s.temperature > 0);
    if (appending)
        m_writeStatus->setText(tr("Writing: each token waits for the pass of the text before it…"));
    else
        m_writeStatus->setText(tr("Token %1 of seed %2 comes next.").arg(session->drawn() + 1).arg(s.seed));
    m_writeStatus->setToolTip(tr("--generate N with these options and --seed %1 writes the same tokens after the text "
                                 "where the seed was set (or the text typed last).")
                                  .arg(s.seed));
}

void PredictionPanel::syncPositions()
{
    const auto& tokens = m_document->model().tokens;
    m_position->clear();
    m_position->addItem(tr("the last token"));
    for (std::size_t i = 0; i < tokens.size(); ++i)
        m_position->addItem(tr("token %1 “%2”").arg(i + 1).arg(QString::fromStdString(tokens[i])));
    showChosenPosition();
}

void PredictionPanel::showChosenPosition()
{
    const int chosen = m_document->predictionPosition();
    m_position->setCurrentIndex(chosen >= 0 && chosen + 1 < m_position->count() ? chosen + 1 : 0);
}

void PredictionPanel::showPrediction()
{
    const ModelSession* session = m_document->modelSession();
    const bool model = session != nullptr;
    static const Prediction none;
    const Prediction& p = model ? session->prediction() : none;
    m_empty->setVisible(!model);
    m_table->setVisible(model && !p.overflowLayer);
    m_status->setVisible(model);
    m_position->setEnabled(model);
    if (!model)
        return;
    const int weights = session->editCount(), heads = int(session->ablations().size());
    const int edits = weights + heads;
    // "1 edited weight and 2 zeroed heads": English counts said in full, as %n would only with an English translation
    QStringList changes;
    if (weights > 0)
        changes << (weights == 1 ? tr("1 edited weight") : tr("%1 edited weights").arg(weights));
    if (heads > 0)
        changes << (heads == 1 ? tr("1 zeroed head") : tr("%1 zeroed heads").arg(heads));
    const QString changed = changes.join(tr(" and "));
    if (p.overflowLayer && *p.overflowLayer < m_document->layerCount())
        m_status->setText(tr("No prediction: the forward pass overflowed float32 in layer %1, whose output is no "
                             "longer made of finite numbers. Undo the edit or give a smaller value.")
                              .arg(*p.overflowLayer + 1));
    else if (p.overflowLayer)
        m_status->setText(tr("No prediction: the forward pass overflowed float32 in the logits after token %1, which "
                             "are no longer finite numbers. Undo the edit or give a smaller value.")
                              .arg(p.position + 1));
    else if (p.entries.empty())
        m_status->setText(tr("Computing…"));
    else if (edits == 0)
        m_status->setText(tr("After token %1 (the checkpoint, no edits).").arg(p.position + 1));
    else if (p.comparing)
        m_status->setText(tr("After token %1, with %2; comparing with the checkpoint without edits…")
                              .arg(p.position + 1)
                              .arg(changed));
    else
        m_status->setText(tr("After token %1, with %2; ▲ ▼: the change against the checkpoint without edits.")
                              .arg(p.position + 1)
                              .arg(changed));
    const QColor up(0x1B, 0x7F, 0x3B), down(0xC0, 0x39, 0x2B);
    // The cells are set with the table's model silent, then announced as one change: told of each cell, the
    // view measured every cell again for its columns sized to their contents, sixty times per prediction.
    QAbstractItemModel* cells = m_table->model();
    QSignalBlocker silent(cells);
    std::vector<double> probabilities;
    for (const Prediction::Entry& e : p.entries)
        probabilities.push_back(e.probability);
    // Decimals enough to tell the candidates apart, the same in every column.
    const int extra = render::distinguishingDecimals(probabilities);
    for (int r = 0; r < rows; ++r) {
        const bool has = r < int(p.entries.size());
        const Prediction::Entry e = has ? p.entries[std::size_t(r)] : Prediction::Entry{};
        auto set = [&](int col, const QString& text, Qt::Alignment align) {
            QTableWidgetItem* item = m_table->item(r, col);
            if (!item) {
                item = new QTableWidgetItem;
                m_table->setItem(r, col, item);
            }
            item->setText(text);
            item->setTextAlignment(align | Qt::AlignVCenter);
            return item;
        };
        set(0, has ? QString::number(r + 1) : QString(), Qt::AlignRight);
        QTableWidgetItem* token = set(1, has ? QString::fromStdString(e.token) : QString(), Qt::AlignLeft);
        token->setToolTip(has ? tr("“%1”, token id %2").arg(QString::fromStdString(e.token)).arg(e.id) : QString());
        set(2, has ? percent(e.probability, extra) : QString(), Qt::AlignRight);
        const bool compared = has && !p.comparing;
        // "=" when the probability beside it reads as the checkpoint's does, else the change as the two read.
        const render::PercentageChange change =
            compared ? render::displayPercentageChange(e.unedited, e.probability, QLocale(), extra) : render::PercentageChange{};
        QString text;
        if (has)
            text = !compared ? QStringLiteral("…")  // the pass without the edits is still running
                 : change.direction == 0 ? QStringLiteral("=")
                 : change.direction > 0 ? tr("▲ +%1 pts").arg(change.points)
                                        : tr("▼ −%1 pts").arg(change.points);
        QTableWidgetItem* changeItem = set(3, text, Qt::AlignRight);
        changeItem->setForeground(change.direction == 0 ? palette().color(QPalette::PlaceholderText)
                                  : change.direction > 0 ? up : down);
        changeItem->setToolTip(!has ? QString()
                               : compared ? tr("Without edits: %1").arg(percent(e.unedited, extra))
                                          : tr("Comparing with the checkpoint without edits…"));
    }
    silent.unblock();
    emit cells->dataChanged(cells->index(0, 0), cells->index(rows - 1, cells->columnCount() - 1));
    fitColumns();
}

void PredictionPanel::fitColumns()
{
    QHeaderView* header = m_table->horizontalHeader();
    header->resizeSections(QHeaderView::ResizeToContents);
    const int room = m_table->viewport()->width() - (header->length() - header->sectionSize(1));
    if (room > header->sectionSize(1))
        header->resizeSection(1, room);
}

bool PredictionPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize)
        fitColumns();
    return QWidget::eventFilter(watched, event);
}

int PredictionPanel::preferredWidth() const
{
    // The widest of each column's heading and a typical long entry: a long word token, a probability and a
    // change of two digits before the point.
    const QFontMetrics fm(m_table->font());
    const QStringList samples{QStringLiteral("10"), QStringLiteral("␣representation"), percent(0.9999),
                              tr("▼ −%1 pts").arg(render::displayNumber(99.99, 'f', 2))};
    const int cellPadding = 2 * (m_table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_table) + 1) + 8;
    int width = 0;
    for (int c = 0; c < m_table->columnCount(); ++c) {
        const int heading = m_table->horizontalHeader()->sectionSizeHint(c);
        width += std::max(heading, fm.horizontalAdvance(samples.value(c)) + cellPadding);
    }
    const QMargins margins = layout()->contentsMargins();
    return width + 2 * m_table->frameWidth() + m_table->style()->pixelMetric(QStyle::PM_ScrollBarExtent)
        + margins.left() + margins.right();
}

}  // namespace ui
