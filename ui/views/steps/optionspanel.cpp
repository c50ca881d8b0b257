#include "ui/views/steps/optionspanel.h"

#include "ui/views/widgets/editorundo.h"
#include "ui/views/widgets/inlinemessage.h"
#include "ui/document/document.h"
#include "ui/i18n/language.h"
#include "ui/render/stepwording.h"

#include "core/attention/edit.h"
#include "core/formats/numbertext.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ui {

namespace {

QLabel* sectionLabel(const QString& text)
{
    auto* label = new QLabel(text);
    QFont bold = label->font();
    bold.setBold(true);
    label->setFont(bold);
    return label;
}

QSpinBox* dimensionBox(int maximum, const QString& name)
{
    auto* box = new QSpinBox;
    box->setObjectName(name);
    box->setRange(1, maximum);
    box->setKeyboardTracking(false);
    box->setAccelerated(true);
    return box;
}

/** A box of a number option: what it takes when the typing ends (one undo step), not at every key. */
QDoubleSpinBox* numberBox(const QString& name, double lo, double hi, int decimals, double step)
{
    auto* box = new QDoubleSpinBox;
    box->setObjectName(name);
    box->setRange(lo, hi);
    box->setDecimals(decimals);
    box->setSingleStep(step);
    box->setKeyboardTracking(false);
    return box;
}

}  // namespace

int OptionsPanel::sliderPosition(double temperature)
{
    const double t = std::clamp(temperature, minTemperature, maxTemperature);
    return int(std::lround(sliderSteps * std::log(t / minTemperature) / std::log(maxTemperature / minTemperature)));
}

double OptionsPanel::sliderTemperature(int position)
{
    const double t = minTemperature * std::pow(maxTemperature / minTemperature, double(position) / sliderSteps);
    return std::round(t * 100.0) / 100.0;
}

OptionsPanel::OptionsPanel(Document* document, QWidget* parent) : QWidget(parent), m_document(document)
{
    setObjectName(QStringLiteral("optionsPanel"));
    createControls();
    layOut();
    i18n::onLanguageChange(this, [this] { retranslate(); });
    connectControls();
    syncFromDocument();
}

void OptionsPanel::createControls()
{
    m_scale = new QCheckBox;
    m_scale->setObjectName(QStringLiteral("scaleBox"));

    m_temperatureSlider = new QSlider(Qt::Horizontal);
    m_temperatureSlider->setObjectName(QStringLiteral("temperatureSlider"));
    m_temperatureSlider->setRange(0, sliderSteps);
    m_temperatureSlider->setPageStep(sliderSteps / 20);
    m_temperatureSlider->setSingleStep(sliderSteps / 100);
    m_temperature = numberBox(QStringLiteral("temperatureBox"), 0.01, 100.0, 2, 0.05);

    m_mask = new QComboBox;
    m_mask->setObjectName(QStringLiteral("maskBox"));
    m_mask->addItem(QString(), int(core::Mask::None));
    m_mask->addItem(QString(), int(core::Mask::Causal));
    m_encoding = new QComboBox;
    m_encoding->setObjectName(QStringLiteral("encodingBox"));
    m_encoding->addItem(QString(), int(core::PositionalEncoding::None));
    m_encoding->addItem(QString(), int(core::PositionalEncoding::Sinusoidal));
    m_encoding->addItem(QString(), int(core::PositionalEncoding::Rotary));
    m_ropeTheta = numberBox(QStringLiteral("ropeThetaBox"), 1.0, 1e8, 0, 1000);
    m_rotaryFraction = numberBox(QStringLiteral("rotaryFractionBox"), 0.05, 1.0, 2, 0.05);
    m_qkNorm = new QCheckBox;
    m_qkNorm->setObjectName(QStringLiteral("qkNormBox"));

    m_heads = dimensionBox(core::Limits::maxHeads, QStringLiteral("headsBox"));
    m_kvHeads = dimensionBox(core::Limits::maxHeads, QStringLiteral("kvHeadsBox"));
    m_dModel = dimensionBox(core::Limits::maxDModel, QStringLiteral("dModelBox"));
    m_dk = dimensionBox(core::Limits::maxWidth, QStringLiteral("dkBox"));
    m_dv = dimensionBox(core::Limits::maxWidth, QStringLiteral("dvBox"));
    m_outputProjection = new QCheckBox;
    m_outputProjection->setObjectName(QStringLiteral("outputProjectionBox"));
    m_dOut = dimensionBox(core::Limits::maxWidth, QStringLiteral("dOutBox"));
    // What a box takes is an undo step of the document's: Ctrl+Z undoes that step, not the box's typing.
    const std::initializer_list<QAbstractSpinBox*> boxes = {m_temperature, m_ropeTheta, m_rotaryFraction, m_heads,
                                                            m_kvHeads,     m_dModel,    m_dk,             m_dv,
                                                            m_dOut};
    for (QAbstractSpinBox* box : boxes)
        routeUndoToDocument(box, m_document->undoStack());
    m_dOutLabel = new QLabel;
    m_dOutLabel->setBuddy(m_dOut);
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("dimensionsNote"));
    m_note->setWordWrap(true);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_note->hide();

    m_message = new InlineMessage;
    m_message->setObjectName(QStringLiteral("optionsMessage"));
}

QFormLayout* OptionsPanel::scoresForm()
{
    auto* temperatureRow = new QHBoxLayout;
    temperatureRow->setSpacing(6);
    temperatureRow->addWidget(m_temperatureSlider, 1);
    temperatureRow->addWidget(m_temperature);

    auto* scores = new QFormLayout;
    scores->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    scores->addRow(m_scale);
    // each row's label, its buddy the control (the label's text comes with retranslate())
    const auto labelled = [scores](QLabel*& label, QWidget* buddy, auto field) {
        label = new QLabel;
        label->setBuddy(buddy);
        scores->addRow(label, field);
    };
    labelled(m_temperatureLabel, m_temperature, temperatureRow);
    labelled(m_maskLabel, m_mask, m_mask);
    labelled(m_positionsLabel, m_encoding, m_encoding);
    labelled(m_ropeThetaLabel, m_ropeTheta, m_ropeTheta);
    labelled(m_rotaryFractionLabel, m_rotaryFraction, m_rotaryFraction);
    scores->addRow(m_qkNorm);
    m_scoresForm = scores;
    return scores;
}

QFormLayout* OptionsPanel::dimensionsForm()
{
    auto* dims = new QFormLayout;
    dims->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    QSpinBox* dimBoxes[4] = {m_heads, m_dModel, m_dk, m_dv};
    for (int i = 0; i < 4; ++i) {
        m_dimLabels[i] = new QLabel;
        m_dimLabels[i]->setBuddy(dimBoxes[i]);
        dims->addRow(m_dimLabels[i], dimBoxes[i]);
    }
    m_kvHeadsLabel = new QLabel;
    m_kvHeadsLabel->setBuddy(m_kvHeads);
    dims->insertRow(1, m_kvHeadsLabel, m_kvHeads);  // under the heads it divides
    dims->addRow(m_outputProjection);
    dims->addRow(m_dOutLabel, m_dOut);
    return dims;
}

void OptionsPanel::layOut()
{
    // A model session's options are its checkpoint's: a note says so in place of the controls.
    m_controls = new QWidget;
    m_fixedNote = new QLabel;
    m_fixedNote->setObjectName(QStringLiteral("fixedByCheckpoint"));
    m_fixedNote->setWordWrap(true);
    m_fixedNote->setTextFormat(Qt::PlainText);
    m_fixedNote->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_fixedNote->setContentsMargins(10, 8, 10, 8);
    // The controls scroll in a low dock: their full height would make the window taller than a 720-pixel screen.
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("optionsScroll"));
    scroll->setWidget(m_controls);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setBackgroundRole(QPalette::Window);
    m_controlsArea = scroll;
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll, 1);
    outer->addWidget(m_fixedNote, 1);

    auto* layout = new QVBoxLayout(m_controls);
    layout->setContentsMargins(10, 8, 10, 8);
    layout->setSpacing(6);
    m_scoresTitle = sectionLabel(QString());
    layout->addWidget(m_scoresTitle);
    layout->addLayout(scoresForm());
    layout->addSpacing(8);
    m_dimsTitle = sectionLabel(QString());
    layout->addWidget(m_dimsTitle);
    layout->addLayout(dimensionsForm());
    layout->addWidget(m_note);
    layout->addWidget(m_message);
    layout->addStretch(1);
}

void OptionsPanel::retranslate()
{
    m_scale->setText(tr("Divide scores by √d_k"));
    m_scale->setToolTip(tr("scaled_scores = scores · s / T with s = 1/√d_k when on, else 1"));
    m_temperatureSlider->setToolTip(tr("Low temperatures sharpen the softmax, high ones flatten it"));
    m_temperature->setAccessibleName(tr("Temperature"));
    m_temperatureSlider->setAccessibleName(tr("Temperature slider"));
    m_mask->setItemText(0, tr("None"));
    m_mask->setItemText(1, tr("Causal (no looking ahead)"));
    m_encoding->setItemText(0, tr("None"));
    m_encoding->setItemText(1, tr("Sinusoidal"));
    m_encoding->setItemText(2, tr("Rotary (RoPE)"));
    m_encoding->setToolTip(tr("Sinusoidal adds sin/cos of the position to X (Vaswani et al., 2017); rotary turns each "
                              "head's q and k by their position (Su et al., 2021)"));
    m_ropeThetaLabel->setText(tr("Rotary &base θ"));
    m_ropeTheta->setToolTip(tr("The base of the rotary angles: pair i of a row at position p turns by p·θ^(−2i/d_r)"));
    m_rotaryFractionLabel->setText(tr("&Rotated share"));
    m_rotaryFraction->setToolTip(tr("The share of each head's d_k dimensions that turns (GPT-NeoX turns a quarter)"));
    m_qkNorm->setText(tr("q/k norm (RMS-normalise each head's q and k)"));
    m_qkNorm->setToolTip(tr("Divides each q and k row by its root mean square before the rotation, as Qwen3 does"));
    m_outputProjection->setText(tr("Output projection W_O"));
    m_outputProjection->setToolTip(tr("output = concat · W_O; off: output = concat"));
    m_temperatureLabel->setText(tr("T&emperature"));
    m_maskLabel->setText(tr("&Mask"));
    m_positionsLabel->setText(tr("&Positions"));
    m_dimLabels[0]->setText(tr("&Heads"));
    m_dimLabels[1]->setText(tr("d_m&odel"));
    m_kvHeadsLabel->setText(tr("K/V hea&ds"));
    m_kvHeads->setToolTip(tr("Query heads share K and V in groups (grouped-query attention): W_K and W_V have the "
                             "columns of this many heads. It must divide the heads."));
    m_dimLabels[2]->setText(tr("d_&k per head"));
    m_dimLabels[3]->setText(tr("d_&v per head"));
    m_dOutLabel->setText(tr("d_o&ut"));
    m_dOut->setToolTip(tr("The columns of W_O, and so of the output (usually d_model)"));
    m_heads->setToolTip(tr("Changing the heads sets d_k = d_v = d_model / h when h divides d_model"));
    m_controlsArea->setAccessibleName(tr("Scores and dimensions"));
    m_scoresTitle->setText(tr("Scores"));
    m_dimsTitle->setText(tr("Dimensions"));
    syncFromDocument();
}

void OptionsPanel::connectControls()
{
    connect(m_scale, &QCheckBox::toggled, this, [this](bool on) {
        core::Options o = m_document->model().options;
        o.scale = on;
        m_document->setOptions(o);
    });
    connect(m_temperatureSlider, &QSlider::valueChanged, this, &OptionsPanel::sliderMoved);
    connect(m_temperatureSlider, &QSlider::sliderReleased, this, &OptionsPanel::sliderReleased);
    connect(m_temperature, &QDoubleSpinBox::valueChanged, this, &OptionsPanel::setTemperature);
    connect(m_mask, &QComboBox::activated, this, [this](int index) {
        core::Options o = m_document->model().options;
        o.mask = core::Mask(m_mask->itemData(index).toInt());
        m_document->setOptions(o);
    });
    connect(m_encoding, &QComboBox::activated, this, [this](int index) {
        core::Options o = m_document->model().options;
        o.positionalEncoding = core::PositionalEncoding(m_encoding->itemData(index).toInt());
        applyOptions(o);
    });
    // θ and the rotated share: each value a box takes is one undo step
    for (const auto& [box, field] : {std::pair{m_ropeTheta, &core::Options::ropeTheta},
                                     std::pair{m_rotaryFraction, &core::Options::rotaryFraction}})
        connect(box, &QDoubleSpinBox::valueChanged, this, [this, field = field](double value) {
            core::Options o = m_document->model().options;
            if (o.*field == value)
                return;
            o.*field = value;
            applyOptions(o);
        });
    connect(m_qkNorm, &QCheckBox::toggled, this, [this](bool on) {
        core::Options o = m_document->model().options;
        o.qkNorm = on;
        applyOptions(o);
    });
    connect(m_heads, &QSpinBox::valueChanged, this, &OptionsPanel::headsChanged);
    connect(m_kvHeads, &QSpinBox::valueChanged, this, [this](int kvHeads) {
        QString error;
        const bool done = m_document->setKvHeads(kvHeads, &error);
        settle(done, error);
    });
    for (QSpinBox* box : {m_dModel, m_dk, m_dv})
        connect(box, &QSpinBox::valueChanged, this, &OptionsPanel::applyDimensions);
    connect(m_dOut, &QSpinBox::valueChanged, this, &OptionsPanel::applyOutputWidth);
    connect(m_outputProjection, &QCheckBox::toggled, m_document, &Document::setOutputProjection);
    connect(m_document, &Document::modelChanged, this, [this](const ModelChange& change) {
        // New values in a matrix change no option and no dimension: setting every box again to the value it shows
        // repainted the whole dock after each cell edit. The note speaks of the change before, so it goes.
        if (change.kind == ModelChange::Kind::Cell || change.kind == ModelChange::Kind::Block
            || change.kind == ModelChange::Kind::Matrix) {
            m_note->hide();
            return;
        }
        syncFromDocument();
    });
}

OptionsPanel::~OptionsPanel() = default;

QString OptionsPanel::message() const
{
    return m_message->message();
}

QString OptionsPanel::note() const
{
    return m_note->isHidden() ? QString() : m_note->text();
}

void OptionsPanel::syncFromDocument()
{
    const core::AttentionModel& m = m_document->model();
    m_note->hide();  // it speaks of the change just made, not of any later one
    const bool fixed = m_document->isModelSession();
    m_controlsArea->setVisible(!fixed);
    m_fixedNote->setVisible(fixed);
    if (fixed)
        m_fixedNote->setText(fixedNote(m));
    const QSignalBlocker b1(m_scale), b2(m_temperatureSlider), b3(m_temperature), b4(m_mask), b5(m_encoding),
        b6(m_heads), b7(m_dModel), b8(m_dk), b9(m_dv), b10(m_outputProjection), b11(m_dOut), b12(m_ropeTheta),
        b13(m_rotaryFraction), b14(m_qkNorm), b15(m_kvHeads);
    m_kvHeads->setValue(m.kvHeads());
    const bool rotary = m.options.positionalEncoding == core::PositionalEncoding::Rotary;
    m_scoresForm->setRowVisible(m_ropeTheta, rotary);
    m_scoresForm->setRowVisible(m_rotaryFraction, rotary);
    m_ropeTheta->setValue(m.options.ropeTheta);
    m_rotaryFraction->setValue(m.options.rotaryFraction);
    m_qkNorm->setChecked(m.options.qkNorm);
    m_scale->setChecked(m.options.scale);
    if (!m_temperatureSlider->isSliderDown())
        m_temperatureSlider->setValue(sliderPosition(m.options.temperature));
    m_temperature->setValue(m.options.temperature);
    m_mask->setCurrentIndex(m_mask->findData(int(m.options.mask)));
    m_encoding->setCurrentIndex(m_encoding->findData(int(m.options.positionalEncoding)));
    m_heads->setValue(m.heads());
    m_dModel->setValue(m.dModel());
    m_dk->setValue(std::max(1, m.dK()));
    m_dv->setValue(std::max(1, m.dV()));
    m_outputProjection->setChecked(m.wo.has_value());
    m_dOut->setEnabled(m.wo.has_value());
    m_dOut->setValue(m.wo ? int(m.wo->cols()) : m.dModel());
}

QString OptionsPanel::fixedNote(const core::AttentionModel& m) const
{
    // What the checkpoint fixes, as it is: only the biases it has, K/V heads when they are shared, its positions.
    QStringList fixes;
    fixes << (m.wo ? tr("W_O") : tr("no W_O"));
    QStringList biases;
    for (const auto& [bias, name] : {std::pair{&m.bq, "b_Q"}, std::pair{&m.bk, "b_K"}, std::pair{&m.bv, "b_V"},
                                     std::pair{&m.bo, "b_O"}})
        if (*bias)
            biases << QString::fromLatin1(name);
    if (!biases.isEmpty())
        fixes << tr("the biases %1").arg(biases.join(QStringLiteral(", ")));
    fixes << render::StepWording::headOptionFacts(m);  // shared K/V heads, q/k norm
    fixes << tr("the causal mask, the division by √d_k and temperature 1");
    const QString positions = m.options.positionalEncoding == core::PositionalEncoding::Rotary
        ? tr("Its positions are rotary (θ = %1), turning %2 of the %3 dimensions of each q and k.")
              .arg(QString::fromStdString(core::formatNumber(m.options.ropeTheta)))
              .arg(core::rotaryWidth(m))
              .arg(m.dK())
        : tr("Its positions are learnt embeddings, in the residual stream already.");
    return tr("Layer %1 of %2 of %3: d_model %4, %5 heads of d_k = d_v = %6. The checkpoint fixes these, %7. %8")
        .arg(m_document->shownLayer() + 1)
        .arg(m_document->layerCount())
        .arg(modelName(m_document->modelSession()->folder()))
        .arg(m.dModel())
        .arg(m.heads())
        .arg(m.dK())
        .arg(fixes.join(tr(", ")), positions);
}

void OptionsPanel::applyOptions(const core::Options& options)
{
    // Refused here, with its reason, rather than shown as an error of the session: a share of d_k too narrow to turn.
    core::AttentionModel after = m_document->model();
    after.options = options;
    if (const auto error = core::validateShapes(after)) {
        m_message->showMessage(tr("Not changed: %1").arg(QString::fromStdString(*error)));
        syncFromDocument();
        return;
    }
    m_message->showMessage(QString());
    m_document->setOptions(options);
}

void OptionsPanel::setTemperature(double t)
{
    core::Options o = m_document->model().options;
    if (!(t > 0) || o.temperature == t)
        return;
    o.temperature = t;
    m_document->setOptions(o);
}

void OptionsPanel::sliderMoved(int position)
{
    if (m_temperatureSlider->isSliderDown() && !m_dragMacro) {
        m_document->undoStack()->beginMacro(tr("Changed the temperature"));
        m_dragMacro = true;
    }
    setTemperature(sliderTemperature(position));
}

void OptionsPanel::sliderReleased()
{
    if (!m_dragMacro)
        return;
    m_dragMacro = false;
    m_document->undoStack()->endMacro();
}

void OptionsPanel::applyDimensions()
{
    const core::AttentionModel& m = m_document->model();
    const int dModel = m_dModel->value(), dk = m_dk->value(), dv = m_dv->value(), heads = m_heads->value();
    if (dModel == m.dModel() && dk == m.dK() && dv == m.dV() && heads == m.heads())
        return;
    QString error;
    m_note->hide();
    if (!m_document->setDimensions(dModel, dk, dv, heads, &error)) {
        m_message->showMessage(tr("Not changed: %1").arg(error));
        syncFromDocument();
        return;
    }
    m_message->showMessage(QString());
}

void OptionsPanel::headsChanged(int heads)
{
    const int dModel = m_dModel->value();
    const std::optional<int> width = core::conventionalHeadWidth(dModel, heads);
    if (width) {
        // The usual convention, in the same undo step as the heads: d_k and d_v can still be changed after.
        const QSignalBlocker bk(m_dk), bv(m_dv);
        m_dk->setValue(*width);
        m_dv->setValue(*width);
    }
    applyDimensions();
    if (width && m_document->model().heads() == heads) {
        m_note->setText(tr("d_k = d_v = d_model / h = %1 / %2 = %3, as usual; change them freely.")
                            .arg(dModel)
                            .arg(heads)
                            .arg(*width));
        m_note->show();
    }
}

void OptionsPanel::applyOutputWidth(int dOut)
{
    QString error;
    const bool done = m_document->setOutputWidth(dOut, &error);
    settle(done, error);
}

void OptionsPanel::settle(bool done, const QString& error)
{
    if (!done) {
        m_message->showMessage(tr("Not changed: %1").arg(error));
        syncFromDocument();
        return;
    }
    m_message->showMessage(QString());
}

}  // namespace ui
