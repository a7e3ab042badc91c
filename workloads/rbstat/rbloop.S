/*
 * rbloop N: a user-space loop of known instructions for rbstat's test
 * (tests/t-rbstat.sh).  Each iteration is the three instructions between
 * rbloop_body and rbloop_end: add, dec, jnz.  No libc: _start parses N
 * and exits, so its instruction count depends only on N's digits.
 */
	.text
	.globl _start
_start:
	mov	(%rsp), %rcx		/* argc */
	xor	%eax, %eax
	cmp	$2, %rcx
	jl	.Lrun
	mov	16(%rsp), %rsi		/* argv[1] */
.Ldigit:
	movzbl	(%rsi), %edx
	test	%edx, %edx
	jz	.Lrun
	imul	$10, %rax, %rax
	sub	$'0', %edx
	add	%rdx, %rax
	inc	%rsi
	jmp	.Ldigit
.Lrun:
	mov	%rax, %rcx
	xor	%edx, %edx
	test	%rcx, %rcx
	jz	.Lexit
	.globl rbloop_body
rbloop_body:
	add	$1, %rdx
	dec	%rcx
	jnz	rbloop_body
	.globl rbloop_end
rbloop_end:
.Lexit:
	mov	$60, %eax		/* exit(0) */
	xor	%edi, %edi
	syscall
