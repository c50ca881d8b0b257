#include "ui/views/widgets/actiontable.h"

#include <QAction>
#include <QCoreApplication>
#include <QIcon>

namespace ui {

ActionTable::ActionTable(const char* context, QObject* owner) : m_context(context), m_owner(owner) {}

QAction* ActionTable::add(Entry entry)
{
    auto* action = new QAction(entry.icon ? QIcon::fromTheme(QString::fromLatin1(entry.icon)) : QIcon(), QString(), m_owner);
    if (entry.name)
        action->setObjectName(QString::fromLatin1(entry.name));
    action->setShortcuts(entry.shortcuts);
    if (entry.triggered)
        QObject::connect(action, &QAction::triggered, m_owner, entry.triggered);
    m_entries.emplace_back(action, std::move(entry));
    const auto& [created, kept] = m_entries.back();
    if (kept.text)
        created->setText(QCoreApplication::translate(m_context, kept.text));
    if (kept.statusTip)
        created->setStatusTip(QCoreApplication::translate(m_context, kept.statusTip));
    return action;
}

void ActionTable::retranslate() const
{
    for (const auto& [action, entry] : m_entries) {
        if (entry.text)
            action->setText(QCoreApplication::translate(m_context, entry.text));
        if (entry.statusTip)
            action->setStatusTip(QCoreApplication::translate(m_context, entry.statusTip));
    }
}

QList<QAction*> ActionTable::actions() const
{
    QList<QAction*> list;
    for (const auto& [action, entry] : m_entries)
        list << action;
    return list;
}

QList<QKeySequence> standardOr(QKeySequence::StandardKey key, const QKeySequence& fallback)
{
    const QList<QKeySequence> keys = QKeySequence::keyBindings(key);
    return keys.isEmpty() ? QList<QKeySequence>{fallback} : keys;
}

}  // namespace ui
