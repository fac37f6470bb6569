"""The committee pages: the resync with the national ranks, accounts, rank adjustments,
the merge of two records of one person, and the recompute status.

Every view is for committee members only. ``committee_required`` comes before the
method check, so that anyone else is sent to log in or refused whatever the method.
Views are thin: a form parses, a service writes, a selector reads.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from players.committee.forms import (
    PLAYER_OPTIONS,
    AccountCreateForm,
    AccountPlayerForm,
    AccountRoleForm,
    AdjustmentForm,
    ClubRoleForm,
    FullRecomputeForm,
    InvitationForm,
    MergeConfirmForm,
    MergeForm,
    PlayerEditForm,
    PlayerToAdjustForm,
    RecomputeClubForm,
    ResyncApplyForm,
    ResyncForm,
    TournamentClassForm,
)
from players.committee.tables import (
    AccountTable,
    AdjustmentTable,
    GameTable,
    RecomputeTable,
    ResyncBatchTable,
    ResyncPreviewTable,
)
from players.models import Player, Tournament
from players.permissions import committee_required
from players.resync import (
    UNKNOWN_ROWS,
    Outcome,
    ResyncPreview,
    list_read_as,
    match_rank_list,
    outcome_count,
)
from players.roles import (
    COMMITTEE,
    EVERY_CLUB,
    ClubRefusal,
    check_account,
    check_club,
    check_federation,
    check_player,
    first_player_refused,
    is_federation_committee,
    role_clubs,
)
from players.selectors import accounts as account_selectors
from players.selectors import adjustments as adjustment_selectors
from players.selectors import players as player_selectors
from players.selectors import recompute as recompute_selectors
from players.selectors import reports as report_selectors
from players.selectors import tournaments as tournament_selectors
from players.selectors.accounts import SYSTEM_USERNAME
from players.selectors.clubs import account_club_roles, clubs_among
from players.selectors.head_to_head import games_between
from players.selectors.players import player_or_404, primary_ranks
from players.services import accounts as accounts_services
from players.services.accounts import (
    account_change_refusal,
    account_link_player,
    account_role,
    account_set_roles,
    club_role_grant,
    club_role_revoke,
    invitation_send,
)
from players.services.adjustments import (
    adjustment_apply,
    resync_apply_preview,
    resync_revert,
    resync_upload_store,
)
from players.services.base import ServiceError
from players.services.players import player_merge, player_update
from players.services.tournaments import tournament_class_set
from players.web.forms import add_service_errors, focus_first_error
from players.web.pagination import PER_PAGE, BoundedRequestConfig
from ratings.algorithms import primary_algorithm
from ratings.recompute.dirty import request_full_recompute

# The preview lists every line, except that a whole national list has thousands of
# names the club does not know: only the first of those are listed, the rest counted.
UNKNOWN_SHOWN = UNKNOWN_ROWS
BAD_SHOWN = 100  # bad lines listed; the rest are counted
# The club's players a federation's list does not name: a big club that plays no
# tournaments would otherwise fill the page (a row weighs about 1 kB).
ABSENT_SHOWN = 200
# Lines naming a player listed more than once: the first are enough to see the mistake
# (one player on 10,000 lines made a page of 10,000 rows).
REPEATED_SHOWN = 200
PASTED_SHOWN_AGAIN = 64 * 1024  # a pasted list longer than this is not put back in the page
AUTO_REFRESH_SECONDS = 5


# --- resync -------------------------------------------------------------------------


def _preview(request, rank_list) -> ResyncPreview:
    """The list matched against the players the user resyncs: a club's committee, its
    current members (others' are as if not here); the federation's, every club's."""
    clubs = role_clubs(request.user, COMMITTEE)
    return match_rank_list(
        rank_list,
        adjustment_selectors.resync_candidates(clubs),
        adjustment_selectors.last_resync_date(),
        of_some_clubs=clubs is not EVERY_CLUB,
    )


def _render_resync(request, form, preview=None, apply_form=None, rank_list=None):
    context = {
        "form": form,
        "preview": preview,
        "apply_form": apply_form,
        # The federation's committee resyncs every club: a line about no player here is
        # of none of the clubs, not "of other clubs" as for a club's committee.
        "every_club": role_clubs(request.user, COMMITTEE) is None,
    }
    if apply_form is not None and not preview.rated:
        # A list without ratings: nothing to choose.
        apply_form.fields["use_ratings"].widget = forms.HiddenInput()
    if apply_form is not None and not preview.of(Outcome.STALE):
        apply_form.fields["include_stale"].widget = forms.HiddenInput()
    if preview is not None:
        shown = preview.shown(
            unknown=UNKNOWN_SHOWN, bad=BAD_SHOWN, absent=ABSENT_SHOWN, repeated=REPEATED_SHOWN
        )
        counts = preview.counts()
        matched = [row.player for row in shown if row.player is not None]
        context |= {
            "table": ResyncPreviewTable(
                shown,
                club_ranks=primary_ranks(matched),
                club_algorithm=primary_algorithm(),
                exclude=(
                    *(() if any(row.rating is not None for row in shown) else ("rating",)),
                    *(() if _ages_shown(shown) else ("last_rated",)),
                ),
            ),
            "rank_list": rank_list,
            "list_read_as": list_read_as(rank_list) if rank_list is not None else "",
            "counts": [
                (outcome, n) for outcome, n in counts.items() if n and outcome != Outcome.UNKNOWN
            ],
            # The same, as the page's badges say them ("30 not on the list").
            "count_labels": [
                outcome_count(outcome, n)
                for outcome, n in counts.items()
                if n and outcome != Outcome.UNKNOWN
            ],
            "unknown": counts[Outcome.UNKNOWN],
            "changed": len(preview.changes),
            "rated": len(preview.rated),
            "hidden_unknown": counts[Outcome.UNKNOWN]
            - sum(row.outcome == Outcome.UNKNOWN for row in shown),
            "hidden_bad": counts[Outcome.BAD] - sum(row.outcome == Outcome.BAD for row in shown),
            "hidden_absent": counts[Outcome.ABSENT]
            - sum(row.outcome == Outcome.ABSENT for row in shown),
            "dates": preview.effective_dates,
            "day_list": ", ".join(day.isoformat() for day in preview.effective_dates),
            "stale": len(preview.of(Outcome.STALE)),
        }
    return render(request, "committee/resync.html", context)


def _ages_shown(rows) -> bool:
    return any(row.last_rated is not None or row.membership for row in rows)


def _preview_again_form(data: dict) -> ResyncForm:
    """The form under a preview, to change the date or the list: a short pasted list
    comes back in it, an uploaded file or a long list is uploaded again."""
    pasted = data.get("list_text", "")
    return ResyncForm(
        initial={
            "list_text": pasted if len(pasted) <= PASTED_SHOWN_AGAIN else "",
            "effective_date": data.get("effective_date"),
            "note": data.get("note", ""),
        }
    )


@committee_required
@require_http_methods(["GET", "POST"])
def resync(request):
    """The list to upload or paste; posting it shows the preview and the apply form.
    The list is kept on the server for the apply (a national list is megabytes)."""
    if request.method != "POST":
        return _render_resync(request, ResyncForm())
    form = ResyncForm(request.POST, request.FILES)
    if not form.is_valid():
        return _render_resync(request, form)
    data = form.cleaned_data
    upload = resync_upload_store(user=request.user, name=data["list_name"], data=data["list_data"])
    kept = {"upload": upload.token, "effective_date": data["effective_date"], "note": data["note"]}
    rank_list = data["rank_list"]
    return _render_resync(
        request,
        _preview_again_form(data),
        _preview(request, rank_list),
        ResyncApplyForm(initial=kept),
        rank_list,
    )


@committee_required
@require_POST
def resync_apply(request):
    """Apply the previewed list, read again from the server's copy and matched again,
    never trusted from the page."""
    form = ResyncApplyForm(request.POST)
    if not form.is_valid() and "rank_list" not in form.cleaned_data:
        return _list_lost(request, form)
    data = form.cleaned_data
    preview = _preview(request, data["rank_list"])
    if form.is_valid():
        try:
            batch = resync_apply_preview(
                user=request.user,
                preview=preview,
                use_ratings=data["use_ratings"],
                include_stale=data["include_stale"],
                note=data["note"],
                upload=data["kept"],
            )
        except ServiceError as error:
            add_service_errors(form, error)
        else:
            return _resync_applied(request, batch)
    focus_first_error(form)
    return _render_resync(request, _preview_again_form(data), preview, form, data["rank_list"])


def _list_lost(request, form):
    # Hidden fields: a list kept too long, or an edited page, gets here.
    for error in form.errors.get("upload", []) or [_("The list did not come back intact.")]:
        messages.error(request, _("%(error)s Preview it again.") % {"error": error})
    return redirect("committee_resync")


def _resync_applied(request, batch):
    count = adjustment_selectors.batch_player_count(batch)
    messages.success(
        request,
        ngettext(
            "Resync #%(number)s applied: %(count)s player reset from %(date)s; "
            "the ratings are recomputed from that date.",
            "Resync #%(number)s applied: %(count)s players reset from %(date)s; "
            "the ratings are recomputed from that date.",
            count,
        )
        % {
            "number": batch.pk,
            "count": number_format(count, force_grouping=True),
            "date": batch.effective_date,
        },
    )
    return redirect("committee_resync_batch", pk=batch.pk)


@committee_required
@require_safe
def resync_batch_list(request):
    table = ResyncBatchTable(adjustment_selectors.resync_batches())
    BoundedRequestConfig(request, paginate={"per_page": PER_PAGE}).configure(table)
    return render(request, "committee/resync_batches.html", {"table": table})


@committee_required
@require_safe
def resync_batch_detail(request, pk: int):
    batch = get_object_or_404(adjustment_selectors.resync_batches(), pk=pk)
    adjustments = adjustment_selectors.batch_adjustments(batch)
    table = AdjustmentTable(adjustments, exclude=("reason",))
    # Reverting is refused unless every player of the batch is the user's (resync_batch_
    # revert): the page then says whose, and whom to ask, instead of offering it.
    other = first_player_refused(request.user, COMMITTEE, {a.player for a in adjustments})
    not_yours = None
    if other is not None:
        try:
            check_player(request.user, COMMITTEE, other, _("resync %(number)s") % {"number": pk})
        except ClubRefusal as refusal:
            not_yours = refusal
    return render(
        request,
        "committee/resync_batch.html",
        {"batch": batch, "table": table, "not_yours": not_yours},
    )


@committee_required
@require_http_methods(["GET", "POST"])
def resync_batch_revert(request, pk: int):
    """GET: what reverting the resync changes, player by player, and the button to
    confirm; POST: revert it."""
    batch = get_object_or_404(adjustment_selectors.resync_batches(), pk=pk)
    for adjustment in batch.adjustments.select_related("player"):
        check_player(
            request.user,
            COMMITTEE,
            adjustment.player,
            _("resync %(number)s") % {"number": batch.pk},
        )
    if request.method != "POST":
        return _revert_plan(request, batch)
    try:
        batch = resync_revert(user=request.user, batch_id=pk)
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request,
            _(
                "Resync #%(number)s reverted: its adjustments are void and the national ranks "
                "restored; the ratings are recomputed."
            )
            % {"number": batch.pk},
        )
    return redirect("committee_resync_batch", pk=pk)


def _revert_plan(request, batch):
    """What reverting the resync would change, or that it is reverted already."""
    if batch.reverted_at is not None:
        messages.info(request, _("Resync #%(number)s was already reverted.") % {"number": batch.pk})
        return redirect("committee_resync_batch", pk=batch.pk)
    changes = adjustment_selectors.resync_revert_plan(batch)
    return render(request, "committee/resync_revert.html", {"batch": batch, "changes": changes})


# --- one player: adjustment and merge ----------------------------------------------


@committee_required
@require_safe
def adjust_choose(request):
    """Which player to adjust: a username, then that player's adjustment page."""
    form = PlayerToAdjustForm(request.GET if "player" in request.GET else None)
    if form.is_valid():
        player = form.cleaned_data["player"]
        try:
            check_player(request.user, COMMITTEE, player)
        except ClubRefusal as refusal:
            _refused_at(form, "player", refusal)
        else:
            return redirect("committee_adjust", username=player.username)
    return render(
        request,
        "committee/adjust_choose.html",
        {
            "form": form,
            "players": player_selectors.player_usernames(),
            "datalist_id": PLAYER_OPTIONS,
        },
    )


@committee_required
@require_http_methods(["GET", "POST"])
def adjust(request, username: str):
    player = player_or_404(username)
    check_player(request.user, COMMITTEE, player)
    form = AdjustmentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            adjustment = adjustment_apply(user=request.user, player=player, **form.cleaned_data)
        except ServiceError as error:
            add_service_errors(form, error)
        else:
            values = {
                "player": player.username,
                "rank": adjustment.new_rank,
                "date": adjustment.date,
                "algorithm": adjustment.algorithm,
            }
            if adjustment.algorithm:
                message = _(
                    "%(player)s reset to %(rank)s from %(date)s (%(algorithm)s); the ratings "
                    "are recomputed from that date."
                )
            else:
                message = _(
                    "%(player)s reset to %(rank)s from %(date)s (all algorithms); the ratings "
                    "are recomputed from that date."
                )
            messages.success(request, message % values)
            if not adjustment.algorithm and form.ignoring:
                messages.info(request, _kept_their_rank(player, form.ignoring))
            return redirect("committee_adjust", username=player.username)
    return _render_adjust(request, player, form)


def _kept_their_rank(player: Player, ignoring: list[str]) -> str:
    """What an adjustment of all algorithms left alone: those that read none (GCR)."""
    return ngettext(
        "%(names)s keeps its own rank for %(player)s: it ignores adjustments.",
        "%(names)s keep their own ranks for %(player)s: they ignore adjustments.",
        len(ignoring),
    ) % {"names": ", ".join(ignoring), "player": player.username}


def _render_adjust(request, player, form):
    table = AdjustmentTable(
        adjustment_selectors.player_adjustments(player), exclude=("player", "full_name")
    )
    BoundedRequestConfig(request, paginate={"per_page": PER_PAGE}).configure(table)
    return render(
        request,
        "committee/adjust.html",
        {
            "player": player,
            "form": form,
            "ratings": player_selectors.player_ratings(player),
            "table": table,
        },
    )


@committee_required
@require_http_methods(["GET", "POST"])
def player_edit(request, username: str):
    """Correct a player's record; the audit trail keeps it before and after."""
    player = player_or_404(username)
    check_player(request.user, COMMITTEE, player)
    initial = PlayerEditForm.initial_for(player)
    form = PlayerEditForm(
        request.POST or None, initial=initial, player=player, clubs=_managed_clubs(request.user)
    )
    if request.method == "POST" and form.is_valid():
        changes = form.changes()
        try:
            player = player_update(user=request.user, player=player, **changes)
        except ServiceError as error:
            add_service_errors(form, error)
        else:
            _say_corrected(request, player, changes)
            return redirect(player)
    return render(request, "committee/player_edit.html", {"player": player, "form": form})


@committee_required
@require_http_methods(["GET", "POST"])
def tournament_class(request, code: str):
    """Correct a tournament's EGF class; the EGF algorithms recompute its games."""
    tournament = get_object_or_404(Tournament, code=code)
    check_club(
        request.user,
        COMMITTEE,
        tournament.club_id,
        _("the class of %(code)s") % {"code": code},
    )
    form = TournamentClassForm(request.POST or None, initial={"egf_class": tournament.egf_class})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            changed = tournament_class_set(
                user=request.user,
                tournament=tournament,
                egf_class=data["egf_class"],
                reason=data["reason"],
            )
        except ServiceError as error:
            add_service_errors(form, error)
        else:
            values = {"code": tournament.code, "egf_class": tournament.egf_class}
            if changed:
                messages.success(
                    request,
                    _(
                        "%(code)s is now class %(egf_class)s: the EGF ratings are recomputed "
                        "from its first game."
                    )
                    % values,
                )
            else:
                messages.info(
                    request, _("Nothing changed: %(code)s was class %(egf_class)s.") % values
                )
            return redirect(tournament)
    return render(
        request, "committee/tournament_class.html", {"tournament": tournament, "form": form}
    )


def _say_corrected(request, player, changes: dict) -> None:
    if not changes:
        messages.info(
            request, _("Nothing changed: %(player)s is as it was.") % {"player": player.username}
        )
    elif "entry_rank" in changes:
        messages.success(
            request,
            _("%(player)s corrected. The ratings are recomputed from the player's first game.")
            % {"player": player.username},
        )
    else:
        messages.success(request, _("%(player)s corrected.") % {"player": player.username})


def _render_merge(request, form, confirm_form=None):
    context = {
        "form": form,
        "confirm_form": confirm_form,
        "players": player_selectors.player_usernames(),
        "datalist_id": PLAYER_OPTIONS,
    }
    if form.is_bound and not form.errors:
        keep, duplicate = form.cleaned_data["keep"], form.cleaned_data["duplicate"]
        between = games_between(keep, duplicate)
        context |= {
            "keep": player_selectors.record_summary(keep),
            "duplicate": player_selectors.record_summary(duplicate),
            "between": GameTable(between) if between.exists() else None,
            "both_listed": tournament_selectors.tournaments_listing_both(keep, duplicate),
        }
        context["not_yours"] = _merge_refusal(request.user, keep, duplicate)
        refused = context["between"] is not None or context["both_listed"]
        if context["not_yours"] is not None:
            # Nothing to confirm: the preview says whose the record is and whom to ask.
            context["confirm_form"] = None
        elif not refused and confirm_form is None:
            context["confirm_form"] = MergeConfirmForm(
                initial={
                    "keep": keep.username,
                    "duplicate": duplicate.username,
                    "note": form.cleaned_data["note"],
                }
            )
    return render(request, "committee/merge.html", context)


def _merge_refusal(user, keep: Player, duplicate: Player) -> ClubRefusal | None:
    """Why ``user`` may not merge these two records (the 403 the merge would be: whose
    the record is and whom to ask), or None."""
    try:
        check_player(user, COMMITTEE, keep)
        check_player(user, COMMITTEE, duplicate)
    except ClubRefusal as refusal:
        return refusal
    return None


@committee_required
@require_http_methods(["GET", "POST"])
def merge(request):
    """Choose the two records (GET shows the preview), then confirm (POST merges)."""
    if request.method != "POST":
        chosen = "keep" in request.GET or "duplicate" in request.GET
        return _render_merge(request, MergeForm(request.GET if chosen else None))
    form = MergeConfirmForm(request.POST)
    if form.is_valid():
        try:
            return _merged(request, form.cleaned_data)
        except ServiceError as error:
            add_service_errors(form, error)
    # Show the preview of what was posted (when both records still read) with the errors.
    chosen_form = MergeForm(request.POST)
    if chosen_form.is_valid():
        return _render_merge(request, chosen_form, confirm_form=form)
    return _render_merge(request, chosen_form)


def _merged(request, data: dict):
    check_player(request.user, COMMITTEE, data["keep"])
    check_player(request.user, COMMITTEE, data["duplicate"])
    keep = player_merge(
        user=request.user, keep=data["keep"], duplicate=data["duplicate"], note=data["note"]
    )
    messages.success(
        request,
        _(
            "%(duplicate)s merged into %(keep)s: its games, adjustments and lines in "
            "tournament files moved, the record is now inactive; the ratings are recomputed."
        )
        % {"duplicate": data["duplicate"].username, "keep": keep.username},
    )
    return redirect(keep)


# --- accounts -----------------------------------------------------------------------


def _account(request, pk: int):
    """The account of the page, for the committee that manages it (403 otherwise)."""
    account = get_object_or_404(account_selectors.account_for_page(pk))
    if account.username == SYSTEM_USERNAME:
        raise Http404("the site's own account has no page")
    check_account(request.user, account)
    return account


@committee_required
@require_safe
def account_list(request):
    table = AccountTable(account_selectors.accounts())
    BoundedRequestConfig(request, paginate={"per_page": PER_PAGE}).configure(table)
    return render(request, "committee/accounts.html", {"table": table})


@committee_required
@require_http_methods(["GET", "POST"])
def account_create(request):
    form = AccountCreateForm(request.POST or None, every_club=is_federation_committee(request.user))
    if request.method == "POST" and form.is_valid():
        try:
            return _account_created(request, form.cleaned_data)
        except ServiceError as error:
            add_service_errors(form, error)
        except ClubRefusal as refusal:  # the player's record is another club's
            _refused_at(form, "player", refusal)
    return render(
        request,
        "committee/account_create.html",
        {"form": form, **_player_options()},
    )


def _refused_at(form: forms.Form, field: str, refusal: ClubRefusal) -> None:
    """A refusal for a record named in a form's field (another club's player), said at
    the field, where another one can be given, with whom to ask: not a 403 page."""
    form.add_error(field, f"{refusal} {refusal.remedy}")


def _account_created(request, data: dict):
    account = accounts_services.account_invite(
        user=request.user,
        username=data["username"],
        email=data["email"],
        role=data["role"],
        player=data["player"],
    )
    messages.success(
        request,
        _(
            "Account %(username)s created; the invitation to choose a password is on its "
            "way to %(email)s."
        )
        % {"username": account.username, "email": data["email"]},
    )
    return redirect("committee_account", pk=account.pk)


def _player_options() -> dict:
    return {"players": player_selectors.player_usernames(), "datalist_id": PLAYER_OPTIONS}


def _render_account(
    request, account, role_form=None, password_form=None, player_form=None, club_role_form=None
):
    context = {
        "account": account,
        "role": account_role(account),
        "refusal": account_change_refusal(request.user, account),
        "role_form": role_form or AccountRoleForm(initial={"role": account_role(account)}),
        "federation": is_federation_committee(request.user),
        "club_roles": account_club_roles(account),
        "club_role_form": club_role_form or ClubRoleForm(clubs=_managed_clubs(request.user)),
        "password_form": password_form or InvitationForm(initial={"email": account.email}),
        "linked_player": report_selectors.linked_player(account),
        "player_form": player_form
        or AccountPlayerForm(
            initial={"player": getattr(report_selectors.linked_player(account), "username", "")}
        ),
        **_player_options(),
    }
    return render(request, "committee/account.html", context)


@committee_required
@require_safe
def account_detail(request, pk: int):
    return _render_account(request, _account(request, pk))


def _managed_clubs(user):
    return clubs_among(role_clubs(user, COMMITTEE))


@committee_required
@require_POST
def account_club_role(request, pk: int):
    """Give or take a role for one club (the club's committee or the federation's)."""
    account = _account(request, pk)
    form = ClubRoleForm(request.POST, clubs=_managed_clubs(request.user))
    if form.is_valid():
        data = form.cleaned_data
        change = club_role_grant if data["action"] == "grant" else club_role_revoke
        try:
            change(user=request.user, account=account, club=data["club"], role=data["role"])
        except ServiceError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, _club_role_changed(account, data))
            return redirect("committee_account", pk=account.pk)
    return _render_account(request, account, club_role_form=form)


def _club_role_changed(account, data: dict) -> str:
    """The message of a role given or taken away, one whole sentence for each."""
    values = {"username": account.username, "club": data["club"].name}
    grant = data["action"] == "grant"
    if data["role"] == "committee":
        if grant:
            return _("%(username)s: committee of %(club)s, given.") % values
        return _("%(username)s: committee of %(club)s, taken away.") % values
    if grant:
        return _("%(username)s: volunteer of %(club)s, given.") % values
    return _("%(username)s: volunteer of %(club)s, taken away.") % values


@committee_required
@require_POST
def account_roles(request, pk: int):
    account = _account(request, pk)
    check_federation(request.user, _("a role for every club"))
    form = AccountRoleForm(request.POST)
    if form.is_valid():
        try:
            account_set_roles(user=request.user, account=account, role=form.cleaned_data["role"])
        except ServiceError as error:
            add_service_errors(form, error)
        else:
            role = account_role(account)
            messages.success(
                request,
                _("%(username)s is now: %(role)s.")
                % {"username": account.username, "role": role.label},
            )
            return redirect("committee_account", pk=account.pk)
    return _render_account(request, account, role_form=form)


@committee_required
@require_POST
def account_password(request, pk: int):
    account = _account(request, pk)
    form = InvitationForm(request.POST)
    if form.is_valid():
        email = form.cleaned_data["email"]
        try:
            invitation_send(user=request.user, account=account, email=email)
        except ServiceError as error:
            add_service_errors(form, error)
        else:
            messages.success(
                request,
                _(
                    "A link to choose a password is on its way to %(email)s; following it "
                    "also lifts any log-in lockout of %(username)s."
                )
                % {"email": email, "username": account.username},
            )
            return redirect("committee_account", pk=account.pk)
    return _render_account(request, account, password_form=form)


@committee_required
@require_POST
def account_player(request, pk: int):
    account = _account(request, pk)
    form = AccountPlayerForm(request.POST)
    if form.is_valid():
        player = form.cleaned_data["player"]
        try:
            account_link_player(user=request.user, account=account, player=player)
        except ServiceError as error:
            add_service_errors(form, error)
        except ClubRefusal as refusal:  # the account is theirs (_account): the player not
            _refused_at(form, "player", refusal)
        else:
            if player is None:
                messages.success(
                    request,
                    _("%(username)s is linked to no player record.")
                    % {"username": account.username},
                )
            else:
                messages.success(
                    request,
                    _("%(username)s is the account of %(player)s.")
                    % {"username": account.username, "player": player.username},
                )
            return redirect("committee_account", pk=account.pk)
    return _render_account(request, account, player_form=form)


# --- recompute ----------------------------------------------------------------------


@committee_required
@require_safe
def recompute_status(request):
    """Every algorithm's state, and a club's games and members awaiting the recompute
    (``?club=``): a club's committee sees its own club's (its one club at once), the
    federation's committee any club's."""
    statuses = recompute_selectors.recompute_statuses()
    federation = is_federation_committee(request.user)
    clubs = clubs_among(role_clubs(request.user, COMMITTEE))
    form = RecomputeClubForm(request.GET or None, clubs=clubs)
    club = None
    if form.is_bound and form.is_valid():
        club = form.cleaned_data["club"]
    elif not form.is_bound and not federation and len(clubs) == 1:
        club = clubs[0]
        form = RecomputeClubForm(initial={"club": club}, clubs=clubs)
    busy = any(
        status.running_since is not None or (status.state is not None and status.state.is_pending)
        for status in statuses
    )
    return render(
        request,
        "committee/recompute.html",
        {
            # A full recompute is the federation committee's (every club's ratings).
            "table": RecomputeTable(statuses, exclude=() if federation else ("actions",)),
            "federation": federation,
            "worker": recompute_selectors.worker_status(),
            "form": FullRecomputeForm(),
            "club_form": form,
            "waiting": recompute_selectors.club_waiting(club) if club is not None else None,
            "auto_refresh": AUTO_REFRESH_SECONDS if busy else None,
        },
    )


@committee_required
@require_POST
def recompute_full(request):
    """Replay every club's ratings: the federation committee's (a club's committee reads
    the status)."""
    check_federation(request.user, _("a full recompute of every club's ratings"))
    form = FullRecomputeForm(request.POST)
    if not form.is_valid():
        messages.error(
            request, _("Not started: %(error)s") % {"error": form.errors["algorithm"][0]}
        )
        return redirect("committee_recompute")
    algorithm = form.cleaned_data["algorithm"]
    dates = request_full_recompute(user=request.user, algorithm=algorithm)
    if dates:
        start = min(dates.values())
        if algorithm:
            message = _("Full recompute of %(algorithm)s from %(date)s requested.")
        else:
            message = _("Full recompute of every algorithm from %(date)s requested.")
        messages.success(request, message % {"algorithm": algorithm, "date": start})
    else:
        messages.info(request, _("Nothing to recompute: there are no games or adjustments yet."))
    return redirect("committee_recompute")
