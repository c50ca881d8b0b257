#include "ui/views/model/blockwidget.h"

#include "ui/document/document.h"
#include "ui/document/viewstate.h"
#include "ui/render/blockpainter.h"

#include <QEvent>
#include <QHelpEvent>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

namespace ui {

/** The figure, as tall as the painter needs at the scroll area's width. */
class BlockCanvas : public QWidget {
public:
    BlockCanvas() { setObjectName(QStringLiteral("blockCanvas")); }

    void setBlock(std::shared_ptr<const core::BlockView> block)
    {
        m_block = std::move(block);
        fit();
        update();
    }
    /** A painter of the block at the current font and palette, and the size it needs at the current width. */
    void fit()
    {
        m_painter = m_block ? std::make_unique<render::BlockPainter>(m_block, style()) : nullptr;
        if (!m_painter)
            return;
        setMinimumWidth(int(m_painter->minimumWidth()));
        setFixedHeight(int(std::ceil(m_painter->heightFor(std::max(width(), minimumWidth())))));
    }
    QString toolTipAt(const QPointF& pos) const
    {
        return m_painter ? m_painter->toolTip(pos, rect()) : QString();
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        if (m_painter)
            m_painter->paint(&p, rect());
    }
    void resizeEvent(QResizeEvent*) override
    {
        if (m_painter)
            setFixedHeight(int(std::ceil(m_painter->heightFor(width()))));
    }
    bool event(QEvent* e) override
    {
        if (e->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(e);
            const QString text = toolTipAt(help->pos());
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(help->globalPos(), text, this);
            return true;
        }
        if (e->type() == QEvent::FontChange || e->type() == QEvent::PaletteChange || e->type() == QEvent::LanguageChange)
            fit();
        return QWidget::event(e);
    }

private:
    render::BlockStyle style() const { return {font(), palette()}; }

    std::shared_ptr<const core::BlockView> m_block;
    std::unique_ptr<render::BlockPainter> m_painter;
};

BlockWidget::BlockWidget(Document* document, ViewState* viewState, QWidget* parent)
    : QWidget(parent), m_document(document), m_viewState(viewState), m_pages(new QStackedWidget), m_empty(new QLabel),
      m_scroll(new QScrollArea), m_canvas(new BlockCanvas)
{
    setObjectName(QStringLiteral("blockView"));
    m_empty->setObjectName(QStringLiteral("blockEmpty"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_empty->setMargin(8);
    m_scroll->setWidget(m_canvas);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_pages->addWidget(m_empty);
    m_pages->addWidget(m_scroll);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pages);
    for (QWidget* page : {static_cast<QWidget*>(m_empty), m_scroll->viewport(), static_cast<QWidget*>(m_canvas)})
        page->installEventFilter(this);
    retranslate();

    connect(document, &Document::predictionChanged, this, &BlockWidget::takeBlock);
    connect(document, &Document::modelChanged, this, [this](const ModelChange& change) {
        if (change.kind != ModelChange::Kind::Model)
            return;
        takeBlock();
        sendPosition();  // a model just opened knows nothing of this view yet
    });
    connect(viewState, &ViewState::selectedQueryChanged, this, [this] { sendPosition(); });
    takeBlock();
}

QString BlockWidget::toolTipAt(const QPointF& pos) const
{
    return m_canvas->toolTipAt(pos);
}

bool BlockWidget::isOnScreen() const
{
    // A dock's tab that is not the current one stays "visible", parked outside the window; asked of the page shown,
    // which no child covers (this widget's own region is all covered by its pages).
    const QWidget* page = m_pages->currentIndex() == 1 ? static_cast<const QWidget*>(m_canvas) : m_empty;
    return page->isVisible() && !page->visibleRegion().isEmpty();
}

void BlockWidget::sendPosition()
{
    if (isOnScreen())
        m_document->setBlockPosition(std::max(0, m_viewState->selectedQuery()));
    else
        m_document->setBlockPosition(std::nullopt);
}

bool BlockWidget::eventFilter(QObject* watched, QEvent* event)
{
    // A tab brought to the front or sent behind moves its dock, not this widget; a first paint says it is seen.
    const QEvent::Type t = event->type();
    if (t == QEvent::Show || t == QEvent::Hide || t == QEvent::Move || t == QEvent::Resize || t == QEvent::Paint)
        QMetaObject::invokeMethod(this, [this] { sendPosition(); }, Qt::QueuedConnection);
    return QWidget::eventFilter(watched, event);
}

void BlockWidget::takeBlock()
{
    const ModelSession* model = m_document->modelSession();
    std::shared_ptr<const core::BlockView> block = model ? model->block() : nullptr;
    m_pages->setCurrentIndex(block ? 1 : 0);
    if (block == m_block)
        return;
    m_block = std::move(block);
    m_canvas->setBlock(m_block);
}

void BlockWidget::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (parentWidget() && parentWidget() != m_dock) {
        m_dock = parentWidget();
        m_dock->installEventFilter(this);
    }
    sendPosition();
}

void BlockWidget::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    sendPosition();
}

void BlockWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void BlockWidget::retranslate()
{
    m_empty->setText(tr("Open a model (File › Open Model…) to see the whole transformer block of the shown layer at "
                        "the selected query: the norms, attention, the MLP and its most active neurons, what each "
                        "layer adds to the residual stream, and the final norm and logits."));
}

} // namespace ui
