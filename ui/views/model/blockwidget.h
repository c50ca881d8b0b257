#pragma once
/** BlockWidget: the Block view dock. The whole transformer block of the shown layer at the selected query, in the
 *  order of the maths (render::BlockPainter), computed on the model runner's worker only while it is visible: shown,
 *  it tells the document where it looks, and each pass brings its block; hidden, it asks for none. Without a model
 *  it says how to get one. */

#include "core/models/blockview.h"

#include <QWidget>

#include <memory>

class QLabel;
class QScrollArea;
class QStackedWidget;

namespace ui {

class Document;
class ViewState;
class BlockCanvas;

class BlockWidget : public QWidget {
    Q_OBJECT
public:
    BlockWidget(Document* document, ViewState* viewState, QWidget* parent = nullptr);

    /** The block shown (null before the first, or without a model). */
    std::shared_ptr<const core::BlockView> block() const { return m_block; }
    /** The tooltip at a point of the figure, in the figure's coordinates (tests). */
    QString toolTipAt(const QPointF& pos) const;

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /** Tells the document where the view looks, or that it looks nowhere while hidden. */
    void sendPosition();
    /** Shown on screen, not only "visible" behind another tab. */
    bool isOnScreen() const;
    /** Takes the model session's newest block. */
    void takeBlock();
    void retranslate();

    Document* m_document;
    ViewState* m_viewState;
    QStackedWidget* m_pages;
    QLabel* m_empty;
    QScrollArea* m_scroll;
    BlockCanvas* m_canvas;
    std::shared_ptr<const core::BlockView> m_block;
    QWidget* m_dock = nullptr; ///< the parent watched for the moves that bring it to the front or behind
};

} // namespace ui
