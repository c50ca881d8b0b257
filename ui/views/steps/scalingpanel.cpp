#include "ui/views/steps/scalingpanel.h"

#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QScrollArea>
#include <QSpinBox>
#include "ui/document/background.h"

#include <algorithm>
#include <cmath>

namespace ui {

/** One small line chart over log₂ d_k with an unscaled and a scaled series. */
class ScalingChart : public QWidget {
public:
    using Series = std::vector<double> core::ScalingStudy::*;

    ScalingChart(const core::ScalingStudy* study, Series unscaled, Series scaled, QWidget* parent)
        : QWidget(parent), m_study(study), m_unscaled(unscaled), m_scaled(scaled)
    {
        // Narrow enough for two side by side in the steps' dock; titles wrap instead of being cut.
        setMinimumSize(180, 200);
    }
    void setTitle(const QString& title) { m_title = title; update(); }
    void setLegend(const QString& unscaled, const QString& scaled)
    {
        m_legendUnscaled = unscaled;
        m_legendScaled = scaled;
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        const QPalette& pal = palette();
        const QColor text = pal.color(QPalette::WindowText);
        const QColor grid = pal.color(QPalette::Mid);
        const QColor unscaledColour(0xd6, 0x60, 0x4d), scaledColour(0x43, 0x93, 0xc3);
        const QFontMetricsF fm(font());
        const double em = fm.height();

        p.setPen(text);
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        // The title wraps onto as many lines as the width needs; the plot starts below it.
        const QRectF titleBox = QFontMetricsF(bold).boundingRect(QRectF(0, 0, width(), height()),
                                                                Qt::AlignHCenter | Qt::TextWordWrap, m_title);
        p.drawText(QRectF(0, 0, width(), titleBox.height()), Qt::AlignHCenter | Qt::TextWordWrap, m_title);
        p.setFont(font());

        const auto& dk = m_study->dk;
        const auto& a = m_study->*m_unscaled;
        const auto& b = m_study->*m_scaled;
        // Below the plot: tick labels, the axis label, the legend, one line each (the legend on two when one is
        // too narrow for it: a dock at 720p once cut its second entry).
        const double entryW[2] = {em * 1.5 + fm.horizontalAdvance(m_legendUnscaled),
                                  em * 1.5 + fm.horizontalAdvance(m_legendScaled)};
        const bool legendOnTwoLines = em * 0.5 + entryW[0] + em * 1.0 + entryW[1] > width();
        const double top = titleBox.height() + em * 0.5;
        const QRectF plot(em * 3.2, top, width() - em * 4.0, height() - top - em * (legendOnTwoLines ? 5.0 : 3.8));
        if (dk.empty() || a.size() != dk.size() || b.size() != dk.size() || plot.width() < 20 || plot.height() < 20) {
            p.drawText(rect(), Qt::AlignCenter, ScalingPanel::tr("Computing…"));
            return;
        }
        double lo = 0, hi = 0;
        for (double v : a) hi = std::max(hi, v);
        for (double v : b) hi = std::max(hi, v);
        // a round tick step, four ticks or so
        const double raw = hi > 0 ? hi / 4 : 0.25;
        const double decade = std::pow(10.0, std::floor(std::log10(raw)));
        double step = decade;
        for (double f : {1.0, 2.0, 2.5, 5.0, 10.0})
            if (f * decade >= raw) {
                step = f * decade;
                break;
            }
        hi = step * 4;
        const double x0 = std::log2(double(dk.front())), x1 = std::log2(double(dk.back()));
        auto toPoint = [&](std::size_t i, double v) {
            const double t = x1 > x0 ? (std::log2(double(dk[i])) - x0) / (x1 - x0) : 0.5;
            return QPointF(plot.left() + t * plot.width(), plot.bottom() - (v - lo) / (hi - lo) * plot.height());
        };

        // axes, grid and ticks
        p.setPen(QPen(grid, 1));
        for (int k = 0; k <= 4; ++k) {
            const double v = lo + (hi - lo) * k / 4;
            const double y = plot.bottom() - plot.height() * k / 4;
            p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
            p.setPen(text);
            p.drawText(QRectF(0, y - em / 2, plot.left() - em * 0.3, em), Qt::AlignRight | Qt::AlignVCenter,
                       QString::number(v, 'g', 3));
            p.setPen(QPen(grid, 1));
        }
        p.setPen(text);
        for (int d = 1; d <= dk.back(); d *= 4) {
            const double t = x1 > x0 ? (std::log2(double(d)) - x0) / (x1 - x0) : 0.5;
            const double x = plot.left() + t * plot.width();
            p.drawText(QRectF(x - em * 2, plot.bottom() + em * 0.2, em * 4, em), Qt::AlignCenter, QString::number(d));
        }
        p.drawText(QRectF(plot.left(), plot.bottom() + em * 1.2, plot.width(), em), Qt::AlignCenter,
                   QStringLiteral("d_k"));

        // the two series
        for (int s = 0; s < 2; ++s) {
            const auto& values = s == 0 ? a : b;
            QPainterPath path;
            for (std::size_t i = 0; i < dk.size(); ++i)
                i == 0 ? path.moveTo(toPoint(i, values[i])) : path.lineTo(toPoint(i, values[i]));
            p.setPen(QPen(s == 0 ? unscaledColour : scaledColour, 2.2));
            p.drawPath(path);
        }

        // legend: under the plot where it fits beside it, else from the left edge, else on two lines
        double ly = plot.bottom() + em * 2.5;
        const double oneLine = entryW[0] + em * 1.0 + entryW[1];
        double lx = legendOnTwoLines ? em * 0.5 : std::clamp(width() - em * 0.5 - oneLine, em * 0.5, plot.left());
        for (int s = 0; s < 2; ++s) {
            p.setPen(QPen(s == 0 ? unscaledColour : scaledColour, 3));
            p.drawLine(QPointF(lx, ly + em / 2), QPointF(lx + em * 1.2, ly + em / 2));
            p.setPen(text);
            const QString label = s == 0 ? m_legendUnscaled : m_legendScaled;
            p.drawText(QPointF(lx + em * 1.5, ly + em * 0.85), label);
            if (legendOnTwoLines) {
                ly += em * 1.2;
            } else {
                lx += entryW[s] + em * 1.0;
            }
        }
    }

private:
    const core::ScalingStudy* m_study;
    Series m_unscaled, m_scaled;
    QString m_title, m_legendUnscaled, m_legendScaled;
};

ScalingPanel::ScalingPanel(QWidget* parent) : QWidget(parent)
{
    // The charts scroll: opening the panel in a small window neither widens nor lengthens it.
    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    auto* content = new QWidget(m_scroll);
    m_scroll->setWidget(content);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_scroll);
    auto* layout = new QGridLayout(content);
    m_sentence = new QLabel(content);
    m_sentence->setWordWrap(true);
    m_keysLabel = new QLabel(content);
    m_keys = new QSpinBox(content);
    m_keys->setRange(2, 1024);
    m_keys->setValue(64);
    m_keysLabel->setBuddy(m_keys);
    layout->addWidget(m_sentence, 0, 0, 1, 2);
    auto* keysRow = new QHBoxLayout;
    keysRow->addWidget(m_keysLabel);
    keysRow->addWidget(m_keys);
    keysRow->addStretch();
    layout->addLayout(keysRow, 1, 0, 1, 2);

    using S = core::ScalingStudy;
    m_charts = {new ScalingChart(&m_study, &S::spreadUnscaled, &S::spreadScaled, content),
                new ScalingChart(&m_study, &S::maxWeightUnscaled, &S::maxWeightScaled, content),
                new ScalingChart(&m_study, &S::entropyUnscaled, &S::entropyScaled, content),
                new ScalingChart(&m_study, &S::gradientUnscaled, &S::gradientScaled, content)};
    for (std::size_t i = 0; i < m_charts.size(); ++i)
        layout->addWidget(m_charts[i], 2 + int(i / 2), int(i % 2));
    layout->setRowStretch(2, 1);
    layout->setRowStretch(3, 1);

    connect(&m_watcher, &QFutureWatcherBase::finished, this, &ScalingPanel::finished);
    connect(m_keys, &QSpinBox::editingFinished, this, [this] { run(m_keys->value()); });
    retranslate();
    run(m_keys->value());
}

ScalingPanel::~ScalingPanel()
{
    m_watcher.waitForFinished();
}

void ScalingPanel::run(int keys)
{
    if (m_watcher.isRunning())
        m_watcher.waitForFinished();
    core::ScalingStudyOptions options;
    options.keys = keys;
    m_watcher.setFuture(runInBackground([options] { return core::runScalingStudy(options); }));
}

void ScalingPanel::finished()
{
    m_study = m_watcher.result();
    for (auto* chart : m_charts)
        chart->update();
    emit studyChanged();
}

void ScalingPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void ScalingPanel::retranslate()
{
    m_sentence->setText(tr("For random queries and keys with unit-variance entries, dot products spread like √d_k. "
                           "Unscaled, the softmax turns almost one-hot as d_k grows and its gradient fades, so "
                           "learning stalls; divided by √d_k, the spread stays near 1 and the softmax stays soft."));
    m_keysLabel->setText(tr("&Keys per softmax (n):"));
    m_scroll->setAccessibleName(tr("Charts of the scaling"));
    const QString unscaled = tr("q·k"), scaled = tr("q·k / √d_k");
    const QString titles[] = {tr("Spread of the scores (standard deviation)"), tr("Largest softmax weight"),
                              tr("Entropy of the softmax (nats)"), tr("Size of the softmax gradient")};
    for (std::size_t i = 0; i < m_charts.size(); ++i) {
        m_charts[i]->setTitle(titles[i]);
        m_charts[i]->setLegend(unscaled, scaled);
    }
}

}  // namespace ui
