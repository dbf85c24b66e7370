/* The writers of the audit trail that the other files of state/ call inside
 * their own transactions (events.c). Internal to state/; the public event
 * API (state_event_add, state_event_list) is in ledger.h. */
#ifndef TASKENV_STATE_EVENTS_H
#define TASKENV_STATE_EVENTS_H

struct ledger;
struct te_err;

/* Append the event "VERB (l->verb) changed resource #ID (its task and
 * "KIND NAME") with OUTCOME" inside the caller's transaction. */
int ledger_event_resource(struct ledger *l, long long id, const char *outcome, struct te_err *err);
/* Append an event for TASK (no resource row), e.g. task or port changes. */
int ledger_event(struct ledger *l, const char *task, const char *resource, const char *outcome,
		 const char *message, struct te_err *err);

#endif
