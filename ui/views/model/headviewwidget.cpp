#include "ui/views/model/headviewwidget.h"

#include "ui/views/widgets/flowlayout.h"
#include "ui/i18n/language.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPixmap>
#include <QVBoxLayout>

#include <algorithm>

namespace ui {

/** The lines, painted by HeadLinesPainter; the mouse picks the hovered token. */
class HeadViewWidget::Canvas : public QWidget {
public:
    explicit Canvas(HeadViewWidget* owner) : QWidget(owner), m_owner(owner)
    {
        setObjectName(QStringLiteral("headViewCanvas"));
        setMouseTracking(true);
        setAttribute(Qt::WA_OpaquePaintEvent);
        setMinimumSize(200, 160);
    }
    std::unique_ptr<render::HeadLinesPainter> painter() const
    {
        if (!m_owner->m_grid)
            return nullptr;
        render::HeadLinesStyle style;
        style.font = font();
        style.palette = palette();
        style.showTitle = true;
        return std::make_unique<render::HeadLinesPainter>(m_owner->m_grid, m_owner->m_view, style);
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        if (const auto painter = this->painter()) {
            painter->paint(&p, QRectF(rect()));
            return;
        }
        p.fillRect(rect(), palette().color(QPalette::Base));
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, HeadViewWidget::tr("Computing…"));
    }
    void mouseMoveEvent(QMouseEvent* event) override
    {
        const auto painter = this->painter();
        const auto token = painter ? painter->tokenAt(event->position(), QRectF(rect())) : std::nullopt;
        hover(token ? token->first : -1, token && token->second);
    }
    void leaveEvent(QEvent*) override { hover(-1, false); }

private:
    void hover(int token, bool key)
    {
        if (token == m_owner->m_view.hoveredToken && key == m_owner->m_view.hoveredIsKey)
            return;
        m_owner->m_view.hoveredToken = token;
        m_owner->m_view.hoveredIsKey = key;
        update();
    }
    HeadViewWidget* m_owner;
};

HeadViewWidget::HeadViewWidget(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("headViewWidget"));
    m_layerLabel = new QLabel;
    m_layerBox = new QComboBox;
    m_layerBox->setObjectName(QStringLiteral("headViewLayerBox"));
    m_layerLabel->setBuddy(m_layerBox);
    m_headLabel = new QLabel;
    m_headBox = new QComboBox;
    m_headBox->setObjectName(QStringLiteral("headViewHeadBox"));
    m_headLabel->setBuddy(m_headBox);
    m_canvas = new Canvas(this);

    auto* bar = new FlowLayout(nullptr, 12, 4);
    bar->setContentsMargins(8, 6, 8, 6);
    bar->addWidget(FlowLayout::group({m_layerLabel, m_layerBox}, 6));
    bar->addWidget(FlowLayout::group({m_headLabel, m_headBox}, 6));
    m_toggleBar = new FlowLayout(nullptr, 10, 2);
    m_toggleBar->setContentsMargins(8, 0, 8, 4);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addLayout(m_toggleBar);
    layout->addWidget(m_canvas, 1);

    connect(m_layerBox, &QComboBox::activated, this, [this](int index) { showHead(index, head()); });
    connect(m_headBox, &QComboBox::activated, this, [this](int index) { showHead(m_view.layer, index - 1); });
    i18n::onLanguageChange(this, [this] { retranslate(); });
}

HeadViewWidget::~HeadViewWidget() = default;

QWidget* HeadViewWidget::canvas() const
{
    return m_canvas;
}

void HeadViewWidget::retranslate()
{
    m_layerLabel->setText(tr("&Layer"));
    m_headLabel->setText(tr("H&eads"));
    m_canvas->setAccessibleName(tr("Head view: queries on the left, keys on the right, lines weighted by attention"));
    m_layerBox->clear();
    m_headBox->clear();
    rebuildControls();
}

void HeadViewWidget::setGrid(std::shared_ptr<const render::AttentionGrid> grid)
{
    const bool shape = !m_grid || !grid || grid->layers != m_grid->layers || grid->heads != m_grid->heads;
    m_grid = std::move(grid);
    if (shape) {
        m_visible.assign(std::size_t(m_grid ? m_grid->heads : 0), true);
        m_layerBox->clear();
        m_headBox->clear();
    }
    rebuildControls();
}

void HeadViewWidget::rebuildControls()
{
    const int layers = m_grid ? m_grid->layers : 0, heads = m_grid ? m_grid->heads : 0;
    if (m_layerBox->count() != layers) {
        m_layerBox->clear();
        for (int l = 0; l < layers; ++l)
            m_layerBox->addItem(tr("%1 of %2").arg(l + 1).arg(layers));
        m_layerBox->setCurrentIndex(-1);  // the first item added became current: updateView() chooses
    }
    if (m_headBox->count() != heads + 1) {
        m_headBox->clear();
        m_headBox->addItem(tr("All heads"));
        for (int h = 0; h < heads; ++h)
            m_headBox->addItem(tr("Head %1").arg(h + 1));
        m_headBox->setCurrentIndex(-1);
    }
    m_layerLabel->setVisible(layers > 1);
    m_layerBox->setVisible(layers > 1);
    if (int(m_toggles.size()) != heads) {
        for (QCheckBox* box : m_toggles) {
            m_toggleBar->removeWidget(box);
            delete box;
        }
        m_toggles.clear();
        for (int h = 0; h < heads; ++h) {
            auto* box = new QCheckBox;
            box->setObjectName(QStringLiteral("headToggle%1").arg(h + 1));
            QPixmap swatch(12, 12);
            swatch.fill(render::HeadLinesPainter::headColour(h));
            box->setIcon(QIcon(swatch));
            box->setChecked(m_visible[std::size_t(h)]);
            connect(box, &QCheckBox::toggled, this, [this, h](bool on) { setHeadVisible(h, on); });
            m_toggleBar->addWidget(box);
            m_toggles.push_back(box);
        }
    }
    for (int h = 0; h < heads; ++h) {
        m_toggles[std::size_t(h)]->setText(tr("head %1").arg(h + 1));
        m_toggles[std::size_t(h)]->setToolTip(tr("Show the lines of head %1").arg(h + 1));
    }
    updateView();
}

int HeadViewWidget::head() const
{
    return m_headBox->currentIndex() - 1;
}

void HeadViewWidget::showHead(int layer, int head)
{
    m_wantedLayer = layer;
    m_wantedHead = head;
    m_layerBox->setCurrentIndex(-1);
    m_headBox->setCurrentIndex(-1);
    updateView();
}

void HeadViewWidget::followShown(int layer, int head)
{
    showHead(layer, m_wantedHead < 0 ? -1 : head);
}

void HeadViewWidget::setHeadVisible(int head, bool on)
{
    if (head < 0 || std::size_t(head) >= m_visible.size())
        return;
    m_visible[std::size_t(head)] = on;
    QCheckBox* box = m_toggles[std::size_t(head)];
    if (box->isChecked() != on)
        box->setChecked(on);
    updateView();
}

void HeadViewWidget::updateView()
{
    const int heads = m_grid ? m_grid->heads : 0;
    // Boxes filled anew (a grid of another shape, another language) show what was asked last, as near as they can.
    if (m_headBox->currentIndex() < 0 && m_headBox->count() > 0)
        m_headBox->setCurrentIndex(std::clamp(m_wantedHead + 1, 0, m_headBox->count() - 1));
    if (m_layerBox->currentIndex() < 0 && m_layerBox->count() > 0)
        m_layerBox->setCurrentIndex(std::clamp(m_wantedLayer, 0, m_layerBox->count() - 1));
    m_view.layer = std::max(0, m_layerBox->currentIndex());
    m_view.heads.clear();
    const int alone = head();
    if (alone >= 0 && alone < heads) {
        m_view.heads.push_back(alone);
    } else {
        for (int h = 0; h < heads; ++h)
            if (m_visible[std::size_t(h)])
                m_view.heads.push_back(h);
    }
    // The toggles choose among all heads; a head shown alone needs none.
    for (QCheckBox* box : m_toggles)
        box->setVisible(alone < 0 && heads > 1);
    m_canvas->update();
}

}  // namespace ui
